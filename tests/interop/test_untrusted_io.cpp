// Untrusted stores and files: a corpus of corrupt zarr metadata, chunks and .npy files (each must give
// CA_EFORMAT / CA_EIO / CA_EINVAL-class errors with a short message, never a crash or a hang), names
// that must not become paths, overwrite that removes only a zarr array, and writes killed by SIGKILL
// (the target stays old or absent; the next write cleans the temporary).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <chunkarray/chunkarray.h>
#include "../support/save_load.h"

#include "core/error.hpp"
#include "interop_util.hpp"
#include "io/fs.hpp"
#include "io/npy.hpp"
#include "io/zarr_array.hpp"
#include "io/zarr_meta.hpp"

namespace io = ca::io;
namespace fs = std::filesystem;
using ca::Index;
using ca::test::TempDir;
using ca::test::write_text;

namespace {

// Every case runs under an alarm: a read that blocks (a FIFO) or never ends (/dev/zero) kills the test
// binary with SIGALRM instead of hanging the suite.
struct Alarm {
  Alarm() { ::alarm(120); }
  ~Alarm() { ::alarm(0); }
};

// f() must throw ca::Error with a code in `codes`, a non-empty message of at most 1000 bytes (no
// input dumped in full), containing `part`.
void expect_clear_error(const std::string &what, const std::function<void()> &f, std::vector<ca_status_t> codes,
                        const std::string &part = "") {
  try {
    f();
    ADD_FAILURE() << what << ": no error";
  } catch (const ca::Error &e) {
    bool ok = false;
    for (ca_status_t c : codes) ok = ok || e.code() == c;
    EXPECT_TRUE(ok) << what << ": " << ca_status_str(e.code()) << " " << e.message();
    EXPECT_FALSE(e.message().empty()) << what;
    EXPECT_LE(e.message().size(), 1000u) << what << ": " << e.message().substr(0, 300);
    if (!part.empty()) {
      EXPECT_NE(e.message().find(part), std::string::npos) << what << ": " << e.message();
    }
  } catch (const std::exception &e) {
    ADD_FAILURE() << what << ": not a ca::Error: " << e.what();
  }
}

const char kGoodZarray[] = R"({"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<f8", "order": "C",
 "fill_value": 0.0, "filters": null, "compressor": null})";

std::string zarray_with(const std::string &key, const std::string &value) {
  std::string s = R"({"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<f8", "order": "C", )"
                  R"("fill_value": 0.0, "filters": null, "compressor": null, ")" +
                  key + "\": " + value + "}";
  return s;
}

std::string npy_bytes(const std::string &dict, size_t data_bytes, int major = 1) {
  std::string h("\x93NUMPY", 6);
  h += char(major);
  h += char(0);
  size_t hl = dict.size() + 1;
  if (major == 1) {
    h += char(hl & 0xff);
    h += char(hl >> 8);
  } else {
    for (int b = 0; b < 4; ++b) h += char((hl >> (8 * b)) & 0xff);
  }
  h += dict + "\n";
  h.append(data_bytes, '\0');
  return h;
}

}  // namespace

TEST(UntrustedNames, PathComponents) {
  for (const char *bad : {"", ".", "..", "a/b", "../x", "a/../../x", "a\\b", "x\x01y", "tab\there", "del\x7f"}) {
    EXPECT_NE(io::path_component_problem(bad), nullptr) << bad;
    expect_clear_error(std::string("name ") + bad, [&] { io::check_path_component(bad, "array name"); }, {CA_EINVAL},
                       "cannot be used as a file name");
  }
  EXPECT_NE(io::path_component_problem(std::string("a\0b", 3)), nullptr);
  EXPECT_NE(io::path_component_problem(std::string(256, 'x')), nullptr);
  for (const char *good : {"x", "a.b", "...", ".hidden", "add-0f3e", "µ-unicode", "0.0"})
    EXPECT_EQ(io::path_component_problem(good), nullptr) << good;
  // Messages escape control bytes and stay short.
  try {
    io::check_path_component(std::string(1000, '\x01'), "array name");
  } catch (const ca::Error &e) {
    EXPECT_NE(e.message().find("\\x01"), std::string::npos);
    EXPECT_LT(e.message().size(), 1200u);
  }
  // The C API check the CLI uses.
  EXPECT_EQ(ca_io_check_name("..", "array name"), CA_EINVAL);
  EXPECT_NE(std::string(ca_last_error_message()).find("parent directory"), std::string::npos);
  EXPECT_EQ(ca_io_check_name("fine", nullptr), CA_OK);
  EXPECT_EQ(ca_io_check_name(nullptr, nullptr), CA_EINVAL);
}

TEST(UntrustedNames, OverwriteRemovesOnlyAZarrArray) {
  TempDir d;
  io::ZarrMeta m = io::make_zarr_meta(CA_FLOAT64, {6}, {2});
  std::string p = d / "arr";
  io::create_zarr_array(p, m);
  std::vector<Index> ext{2};
  ca::BlockRef b(ca::block_new(CA_FLOAT64, 1, ext.data()));
  for (Index c = 0; c < 3; ++c) io::write_zarr_chunk(p, m, std::vector<Index>{c}, *b.get());
  // A stale temporary and a nested chunk directory ('/' separator) are part of the array.
  write_text(p + "/.0.999999999-1.partial", "stale");
  io::create_zarr_array(p, m, "", true);
  EXPECT_FALSE(fs::exists(p + "/0"));
  EXPECT_FALSE(fs::exists(p + "/.0.999999999-1.partial"));
  EXPECT_TRUE(io::is_zarr_array(p));
  // Anything foreign inside: CA_EEXISTS naming it, and nothing removed.
  io::write_zarr_chunk(p, m, std::vector<Index>{1}, *b.get());
  write_text(p + "/notes.txt", "mine");
  expect_clear_error("foreign file", [&] { io::create_zarr_array(p, m, "", true); }, {CA_EEXISTS}, "notes.txt");
  EXPECT_TRUE(fs::exists(p + "/notes.txt"));
  EXPECT_TRUE(fs::exists(p + "/1"));
  EXPECT_TRUE(fs::exists(p + "/.zarray"));
  fs::remove(p + "/notes.txt");
  // A group is never replaced, with or without overwrite: its members stay.
  io::create_group(d / "g");
  io::create_zarr_array(d / "g/member", m);
  expect_clear_error("group", [&] { io::create_zarr_array(d / "g", m, "", true); }, {CA_EEXISTS}, "group");
  EXPECT_TRUE(io::is_zarr_array(d / "g/member"));
  // Nor is an array reached through a symbolic link.
  fs::create_directory_symlink(p, d / "link");
  expect_clear_error("symlink", [&] { io::create_zarr_array(d / "link", m, "", true); }, {CA_EEXISTS}, "symbolic link");
  EXPECT_TRUE(fs::exists(p + "/1"));
  // A chunk that is a symbolic link is removed as a link; its target survives.
  write_text(d / "outside", "keep");
  fs::create_symlink(d / "outside", p + "/2");
  io::create_zarr_array(p, m, "", true);
  EXPECT_TRUE(fs::exists(d / "outside"));
  EXPECT_FALSE(fs::exists(p + "/2"));
  // '/' separator: nested chunk directories are removed too.
  io::ZarrMeta m2 = io::make_zarr_meta(CA_FLOAT64, {4, 4}, {2, 2});
  m2.dimension_separator = '/';
  std::string p2 = d / "nested";
  io::create_zarr_array(p2, m2);
  std::vector<Index> ext2{2, 2};
  ca::BlockRef b2(ca::block_new(CA_FLOAT64, 2, ext2.data()));
  io::write_zarr_chunk(p2, m2, std::vector<Index>{1, 1}, *b2.get());
  EXPECT_TRUE(fs::exists(p2 + "/1/1"));
  io::create_zarr_array(p2, m2, "", true);
  EXPECT_FALSE(fs::exists(p2 + "/1"));
}

TEST(CorruptStore, ZarrMetadata) {
  Alarm alarm;
  TempDir d;
  struct Case {
    const char *name;
    std::string text;
    std::vector<ca_status_t> codes;
    std::string part;
  };
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::string deep_obj;
  for (int i = 0; i < 100000; ++i) deep_obj += "{\"a\":";
  deep_obj += "1" + std::string(100000, '}');
  std::vector<Case> cases = {
      {"truncated", std::string(kGoodZarray).substr(0, 40), {CA_EFORMAT}, "corrupt JSON"},
      {"empty", "", {CA_EFORMAT}, ""},
      {"not an object", "[1, 2]", {CA_EFORMAT}, "object"},
      {"shape is a string", zarray_with("shape", "\"abc\""), {CA_EFORMAT}, "shape"},
      {"negative shape", zarray_with("shape", "[-4]"), {CA_EFORMAT}, "shape"},
      {"zero chunk", zarray_with("chunks", "[0]"), {CA_EFORMAT}, "chunks"},
      {"float chunk", zarray_with("chunks", "[1.5]"), {CA_EFORMAT}, "chunks"},
      {"dtype number", zarray_with("dtype", "5"), {CA_EUNSUPPORTED}, "dtype"},
      {"dtype nested", zarray_with("dtype", deep.substr(0, 50) + deep.substr(0, 50)), {CA_EFORMAT}, ""},
      {"order", zarray_with("order", "\"Z\""), {CA_EFORMAT}, "order"},
      {"fill nested", zarray_with("fill_value", "[[[[1]]]]"), {CA_EFORMAT}, "fill_value"},
      {"compressor junk", zarray_with("compressor", "{\"id\": 7}"), {CA_EFORMAT}, "compressor"},
      {"zarr_format 3", zarray_with("zarr_format", "3"), {CA_EVERSION, CA_EFORMAT}, ""},
      {"huge shape", zarray_with("shape", "[4611686018427387904, 4611686018427387904]"), {CA_EFORMAT}, ""},
      {"huge bytes", R"({"zarr_format": 2, "shape": [2305843009213693952], "chunks": [1099511627776], "dtype": "<f8",
        "order": "C", "fill_value": 0, "filters": null, "compressor": null})", {CA_EFORMAT}, "more than 2^63-1 bytes"},
      {"too many chunks", R"({"zarr_format": 2, "shape": [1099511627776], "chunks": [1], "dtype": "<f8",
        "order": "C", "fill_value": 0, "filters": null, "compressor": null})", {CA_EFORMAT}, "chunks along axis"},
      {"deep arrays", deep, {CA_EFORMAT}, "nested deeper"},
      {"deep objects", deep_obj, {CA_EFORMAT}, "nested deeper"},
      {"deep in a value", zarray_with("attrs", deep), {CA_EFORMAT}, "nested deeper"},
      {"non-UTF-8", zarray_with("dtype", "\"\xff\xfe\x80\""), {CA_EFORMAT}, ""},
      {"NUL byte", std::string("{\"zarr_format\": 2\0}", 19), {CA_EFORMAT}, ""},
      {"long string value", zarray_with("order", "\"" + std::string(1 << 20, 'x') + "\""), {CA_EFORMAT}, "order"},
      {"too large", std::string(io::kMaxMetadataBytes + 1, ' '), {CA_EFORMAT}, "bytes"},
  };
  for (const Case &c : cases) {
    std::string p = d / (std::string("z_") + std::to_string(&c - cases.data()));
    fs::create_directories(p);
    write_text(p + "/.zarray", c.text);
    expect_clear_error(c.name, [&] { io::read_zarr_meta(p); }, c.codes, c.part);
    // Through the C API too: a status, a message, no crash.
    ca_array_t *a = nullptr;
    EXPECT_NE(ca_array_from_zarr(&a, p.c_str(), nullptr), CA_OK) << c.name;
    EXPECT_EQ(a, nullptr);
    EXPECT_GT(std::strlen(ca_last_error_message()), 0u) << c.name;
  }
  // .zarray that is no regular file: a FIFO (blocked forever), /dev/zero (read forever), a directory.
  std::string fifo = d / "fifo";
  fs::create_directories(fifo);
  ASSERT_EQ(::mkfifo((fifo + "/.zarray").c_str(), 0600), 0);
  expect_clear_error("FIFO .zarray", [&] { io::read_zarr_meta(fifo); }, {CA_EIO}, "FIFO");
  std::string zero = d / "zero";
  fs::create_directories(zero);
  fs::create_symlink("/dev/zero", zero + "/.zarray");
  expect_clear_error("/dev/zero .zarray", [&] { io::read_zarr_meta(zero); }, {CA_EIO}, "device");
  std::string dir = d / "dir";
  fs::create_directories(dir + "/.zarray");
  expect_clear_error("directory .zarray", [&] { io::read_zarr_meta(dir); }, {CA_EIO}, "directory");
  // .zattrs: the same budgets.
  std::string at = d / "attrs";
  io::create_zarr_array(at, io::make_zarr_meta(CA_FLOAT64, {4}, {4}));
  write_text(at + "/.zattrs", deep);
  expect_clear_error("deep .zattrs", [&] { io::read_zattrs(at); }, {CA_EFORMAT}, "nested deeper");
  write_text(at + "/.zattrs", "{\"a\": NaN, \"b\": [1, 2]}");
  EXPECT_EQ(io::read_zattrs(at), "{\"a\": NaN, \"b\": [1, 2]}");
  fs::remove(at + "/.zattrs");
  ASSERT_EQ(::mkfifo((at + "/.zattrs").c_str(), 0600), 0);
  expect_clear_error("FIFO .zattrs", [&] { io::read_zattrs(at); }, {CA_EIO}, "FIFO");
  expect_clear_error("deep attrs written", [&] { io::write_zattrs(d / "w", deep); }, {CA_EINVAL}, "nested deeper");
}

TEST(CorruptStore, ZarrChunks) {
  Alarm alarm;
  TempDir d;
  for (const char *comp : {"none", "zlib"}) {
    io::ZarrMeta m = io::make_zarr_meta(CA_FLOAT64, {8}, {4});
    if (std::string(comp) == "zlib") m.compressor = io::Compressor::zlib(1);
    std::string p = d / comp;
    io::create_zarr_array(p, m);
    std::vector<Index> ext{4};
    ca::BlockRef b(ca::block_new(CA_FLOAT64, 1, ext.data()));
    for (int i = 0; i < 4; ++i) b.data<double>()[i] = i;
    io::write_zarr_chunk(p, m, std::vector<Index>{0}, *b.get());
    std::string good = ca::test::read_text(p + "/0");
    auto read1 = [&] { io::read_zarr_chunk(p, m, std::vector<Index>{1}); };
    auto region = [&] { io::read_zarr_region(p, m, std::vector<Index>{2}, std::vector<Index>{7}); };
    std::string c1 = p + "/1";
    write_text(c1, good.substr(0, good.size() / 2));
    expect_clear_error(std::string(comp) + " truncated", read1, {CA_EFORMAT}, "1");
    expect_clear_error(std::string(comp) + " truncated (region)", region, {CA_EFORMAT}, "1");
    if (m.compressor.is_none()) {
      write_text(c1, good + good);
      expect_clear_error(std::string(comp) + " too long", read1, {CA_EFORMAT}, "");
    }
    write_text(c1, std::string(4 << 20, 'x'));  // far above any encoding of 32 bytes
    expect_clear_error(std::string(comp) + " oversize", read1, {CA_EFORMAT}, "bytes");
    fs::remove(c1);
    fs::create_symlink("/dev/zero", c1);
    expect_clear_error(std::string(comp) + " /dev/zero", read1, {CA_EIO}, "device");
    expect_clear_error(std::string(comp) + " /dev/zero (region)", region, {CA_EIO}, "device");
    fs::remove(c1);
    ASSERT_EQ(::mkfifo(c1.c_str(), 0600), 0);
    expect_clear_error(std::string(comp) + " FIFO", read1, {CA_EIO}, "FIFO");
    fs::remove(c1);
    fs::create_directories(c1);
    expect_clear_error(std::string(comp) + " directory", read1, {CA_EIO}, "directory");
    fs::remove(c1);
    // The good chunk still reads.
    ca::BlockRef back = io::read_zarr_chunk(p, m, std::vector<Index>{0});
    for (int i = 0; i < 4; ++i) EXPECT_EQ(back.data<double>()[i], i);
  }
}

TEST(CorruptStore, Npy) {
  Alarm alarm;
  TempDir d;
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";
  struct Case {
    const char *name;
    std::string bytes;
    std::vector<ca_status_t> codes;
    std::string part;
  };
  std::string junk_header = npy_bytes("{'descr': '<f8', " + std::string(60000, '@') + "}", 0);
  std::vector<Case> cases = {
      {"bad magic", "\x93NUMPX" + npy_bytes(dict, 32).substr(6), {CA_EFORMAT}, "magic"},
      {"short", "\x93NUM", {CA_EFORMAT}, ""},
      {"lying header", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }", 32), {CA_EFORMAT},
       "truncated"},
      {"truncated data", npy_bytes(dict, 20), {CA_EFORMAT}, "truncated"},
      {"header length past the end", npy_bytes(dict, 0, 2).substr(0, 8) + std::string("\xff\xff\xff\x7f", 4) + "{",
       {CA_EFORMAT}, ""},
      {"junk header", junk_header, {CA_EFORMAT}, "malformed"},
      {"huge shape", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (999999999999999999, 99999999999), }", 0),
       {CA_EFORMAT}, ""},
      {"nested descr", npy_bytes("{'descr': [[[[[('a', '<f8')]]]]], 'fortran_order': False, 'shape': (4,), }", 32),
       {CA_EUNSUPPORTED, CA_EFORMAT}, ""},
      {"version 9", npy_bytes(dict, 32).replace(6, 1, "\x09"), {CA_EVERSION}, ""},
  };
  for (const Case &c : cases) {
    std::string p = d / (std::to_string(&c - cases.data()) + ".npy");
    write_text(p, c.bytes);
    expect_clear_error(c.name, [&] { io::read_npy(p); }, c.codes, c.part);
    ca_array_t *a = nullptr;
    EXPECT_NE(ca_array_from_npy(&a, p.c_str(), nullptr), CA_OK) << c.name;
    EXPECT_LE(std::strlen(ca_last_error_message()), 1000u) << c.name;
  }
  std::string fifo = d / "fifo.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_clear_error("FIFO .npy", [&] { io::read_npy(fifo); }, {CA_EIO}, "FIFO");
  ca_array_t *a = nullptr;
  EXPECT_EQ(ca_array_from_npy(&a, fifo.c_str(), nullptr), CA_EIO);
  std::string zero = d / "zero.npy";
  fs::create_symlink("/dev/zero", zero);
  expect_clear_error("/dev/zero .npy", [&] { io::read_npy(zero); }, {CA_EIO}, "device");
  expect_clear_error("directory .npy", [&] { io::read_npy(d.path()); }, {CA_EIO}, "directory");
}

// A write killed by SIGKILL leaves the target old (never torn) and its temporary behind; the next
// write of the same target removes the temporary.
TEST(KilledWrite, NpyTargetStaysOldAndTheNextWriteCleansUp) {
  Alarm alarm;
  TempDir d;
  std::string target = d / "big.npy";
  std::vector<Index> small{3};
  ca::BlockRef old(ca::block_new(CA_FLOAT64, 1, small.data()));
  for (int i = 0; i < 3; ++i) old.data<double>()[i] = 10 + i;
  io::write_npy(target, *old.get());
  std::string old_bytes = ca::test::read_text(target);

  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child writes a 128 MiB array, tells the parent once half of it is written, and keeps writing.
    ::close(pipefd[0]);
    try {
      std::vector<Index> shape{Index(16) << 20}, half{Index(8) << 20};
      io::NpyWriter w(target, CA_FLOAT64, shape);
      ca::BlockRef b(ca::block_new(CA_FLOAT64, 1, half.data()));
      std::memset(b->data, 0x5a, size_t(b->nbytes));
      w.write_region(std::vector<Index>{0}, *b.get());
      char c = 'x';
      (void)!::write(pipefd[1], &c, 1);
      for (;;) w.write_region(std::vector<Index>{Index(8) << 20}, *b.get());
    } catch (...) {
    }
    ::_exit(3);
  }
  ::close(pipefd[1]);
  char c;
  ASSERT_EQ(::read(pipefd[0], &c, 1), 1);
  ::close(pipefd[0]);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  // The target is the old file, whole.
  EXPECT_EQ(ca::test::read_text(target), old_bytes);
  ca::BlockRef back = io::read_npy(target);
  EXPECT_EQ(back->shape[0], 3);
  // The killed writer's temporary is there (about 128 MiB) ...
  auto partials = [&] {
    std::vector<std::string> v;
    for (auto &e : fs::directory_iterator(d.path()))
      if (e.path().filename().string().find(".partial") != std::string::npos) v.push_back(e.path().string());
    return v;
  };
  ASSERT_EQ(partials().size(), 1u);
  EXPECT_TRUE(io::is_stale_temporary(fs::path(partials()[0]).filename().string()));
  // ... until the next write of the same target, which removes it.
  for (int i = 0; i < 3; ++i) old.data<double>()[i] = 20 + i;
  io::write_npy(target, *old.get());
  EXPECT_TRUE(partials().empty());
  EXPECT_EQ(io::read_npy(target).data<double>()[2], 22.0);

  // Zarr: a killed chunk or metadata write leaves ".<key>.<pid>-<n>.partial"; overwriting the array
  // removes them, rewriting metadata removes the stale metadata temporary.
  io::ZarrMeta m = io::make_zarr_meta(CA_FLOAT64, {4}, {2});
  std::string z = d / "z";
  io::create_zarr_array(z, m);
  std::string dead = std::to_string(child);  // reaped: no such process
  write_text(z + "/.0." + dead + "-7.partial", "torn chunk");
  write_text(z + "/..zarray." + dead + "-0.partial", "{\"torn");
  write_text(z + "/..zarray." + std::to_string(::getpid()) + "-99.partial", "a live writer's");
  io::write_zarr_meta(z, m);
  EXPECT_FALSE(fs::exists(z + "/..zarray." + dead + "-0.partial"));
  EXPECT_TRUE(fs::exists(z + "/..zarray." + std::to_string(::getpid()) + "-99.partial"));
  io::create_zarr_array(z, m, "", true);
  EXPECT_FALSE(fs::exists(z + "/.0." + dead + "-7.partial"));
  EXPECT_TRUE(io::is_zarr_array(z));

  // Graph files: the same temporaries, cleaned by the next save of the same file.
  std::string gfile = d / "g.cagraph";
  write_text(d / (".g.cagraph." + dead + "-0.partial"), "torn graph");
  ca_graph_t *g = nullptr;
  ASSERT_EQ(ca_graph_new(&g), CA_OK);
  ca_status_t st = save_to(nullptr, nullptr, gfile.c_str(), g, nullptr, 0, nullptr);
  ca_graph_free(g);
  if (st != CA_EUNSUPPORTED) {  // built without Cap'n Proto: no graph files
    EXPECT_EQ(st, CA_OK) << ca_last_error_message();
    EXPECT_FALSE(fs::exists(d / (".g.cagraph." + dead + "-0.partial")));
    EXPECT_TRUE(fs::exists(gfile));
  }
}

TEST(KilledWrite, FsyncSwitch) {
  ::unsetenv("CA_IO_NO_FSYNC");
  EXPECT_TRUE(io::fsync_enabled());
  ::setenv("CA_IO_NO_FSYNC", "0", 1);
  EXPECT_TRUE(io::fsync_enabled());
  ::setenv("CA_IO_NO_FSYNC", "1", 1);
  EXPECT_FALSE(io::fsync_enabled());
  // Writes still work (and are atomic) without fsync.
  TempDir d;
  io::write_file_atomic(d / "f", "abc", 3);
  EXPECT_EQ(ca::test::read_text(d / "f"), "abc");
  ::unsetenv("CA_IO_NO_FSYNC");
  io::write_file_atomic(d / "f", "defg", 4);
  EXPECT_EQ(ca::test::read_text(d / "f"), "defg");
}
