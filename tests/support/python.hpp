// One long-lived Python interpreter per test process, for the tests that use NumPy, dask or zarr-python
// as their reference.
//
// Starting python3 and importing NumPy costs ~0.3 s of CPU (dask ~1 s), and the suites ran it ~300
// times per build tree, each through std::system (a fork of the whole, sanitizer-instrumented test
// process plus a shell). python_run() instead sends each script to a server started once with
// posix_spawn; it runs the script as `__main__` in fresh globals with the script's own argv, stdout and
// stderr (file descriptors 1 and 2 are redirected, so C-level output goes there too), and restores
// what a script may change in the interpreter: the working directory, sys.path, sys.argv, the
// warning filters and NumPy's error state. Modules stay imported; that is the point.
//
// The exit status is what `python3 script args...` would give: 0, the SystemExit code, or 1 with the
// traceback on stderr for an exception. A script that kills the interpreter (os._exit, a crash) gives
// -1 and the next call starts a new server. CA_TEST_PYTHON_SERVER=0 in the environment runs every
// script in a process of its own instead (the old way, for comparing).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#ifndef CA_PYTHON
#define CA_PYTHON "/usr/bin/python3"
#endif

extern char **environ;

namespace ca::test {

namespace python_detail {

// The server: requests on stdin, one per line (JSON), answers on fd 3 ("<status>\n").
inline const char *const kServer = R"PY(
import sys, os, json, traceback, warnings
ans = os.fdopen(3, 'w')
saved_fds = (os.dup(1), os.dup(2))
def run(req):
    script, argv = req['script'], req['argv']
    cwd, path, old_argv = os.getcwd(), list(sys.path), sys.argv
    np = sys.modules.get('numpy')
    err = np.geterr() if np is not None else None
    out = os.open(req['stdout'] or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    er = out if req['stderr'] == req['stdout'] else os.open(req['stderr'] or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush(); sys.stderr.flush()
    os.dup2(out, 1); os.dup2(er, 2)
    status = 0
    try:
        with warnings.catch_warnings():
            sys.argv = [script] + argv
            sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
            g = {'__name__': '__main__', '__file__': script, '__builtins__': __builtins__}
            with open(script) as f:
                code = compile(f.read(), script, 'exec')
            exec(code, g)
    except SystemExit as e:
        c = e.code
        if c is None: status = 0
        elif isinstance(c, int): status = c & 0xff
        else: print(c, file=sys.stderr); status = 1
    except BaseException:
        traceback.print_exc()
        status = 1
    finally:
        try:
            sys.stdout.flush(); sys.stderr.flush()
        except Exception:
            pass
        os.dup2(saved_fds[0], 1); os.dup2(saved_fds[1], 2)
        os.close(out)
        if er != out: os.close(er)
        os.chdir(cwd); sys.path[:] = path; sys.argv = old_argv
        np = sys.modules.get('numpy')
        if np is not None:
            if err is not None: np.seterr(**err)
            else: np.seterr(all='warn', under='ignore')
    return status
for line in sys.stdin:
    ans.write('%d\n' % run(json.loads(line))); ans.flush()
)PY";

inline std::string json_str(const std::string &s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += char(c);
    else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else o += char(c);
  }
  return o + "\"";
}

struct Server {
  std::mutex mu;
  pid_t pid = -1, owner = -1;  // owner: the process that started it (a forked child starts its own)
  FILE *req = nullptr;
  FILE *ans = nullptr;

  void stop() {
    if (pid > 0 && owner == getpid()) {
      if (req) std::fclose(req);
      if (ans) std::fclose(ans);
      int st = 0;
      while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
    }
    pid = -1, req = nullptr, ans = nullptr;
  }
  bool start() {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return false;
    if (pipe2(out, O_CLOEXEC) != 0) {
      close(in[0]), close(in[1]);
      return false;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 3);
    const char *argv[] = {CA_PYTHON, "-c", kServer, nullptr};
    pid_t p = -1;
    int rc = posix_spawn(&p, CA_PYTHON, &fa, nullptr, const_cast<char **>(argv), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]), close(out[1]);
    if (rc != 0) {
      close(in[1]), close(out[0]);
      return false;
    }
    pid = p, owner = getpid();
    req = fdopen(in[1], "w");
    ans = fdopen(out[0], "r");
    return req && ans;
  }
  ~Server() { stop(); }
};

inline Server &server() {
  static Server s;
  return s;
}

inline std::string shell_quote(const std::string &s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

}  // namespace python_detail

/// Run the Python file `script` with `args` (as `python3 script args...` would), its stdout written to
/// `stdout_path` and its stderr to `stderr_path` (the same path for both: interleaved; "" discards).
/// Returns the exit status, or -1 if the interpreter died.
inline int python_run(const std::string &script, const std::vector<std::string> &args,
                      const std::string &stdout_path, const std::string &stderr_path) {
  using namespace python_detail;
  const char *mode = std::getenv("CA_TEST_PYTHON_SERVER");
  if (mode && std::strcmp(mode, "0") == 0) {
    std::string cmd = shell_quote(CA_PYTHON) + " " + shell_quote(script);
    for (auto &a : args) cmd += " " + shell_quote(a);
    const std::string o = stdout_path.empty() ? "/dev/null" : stdout_path;
    const std::string e = stderr_path.empty() ? "/dev/null" : stderr_path;
    cmd += " >" + shell_quote(o) + (e == o ? " 2>&1" : " 2>" + shell_quote(e));
    int rc = std::system(cmd.c_str());
    return rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
  }
  Server &s = server();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.pid > 0 && s.owner != getpid()) s.pid = -1, s.req = nullptr, s.ans = nullptr;  // forked: not ours
  if (s.pid <= 0 && !s.start()) return -1;
  std::string line = "{\"script\": " + json_str(std::filesystem::absolute(script).string()) + ", \"argv\": [";
  for (size_t i = 0; i < args.size(); ++i) line += (i ? ", " : "") + json_str(args[i]);
  line += "], \"stdout\": " + json_str(stdout_path.empty() ? "" : std::filesystem::absolute(stdout_path).string()) +
          ", \"stderr\": " + json_str(stderr_path.empty() ? "" : std::filesystem::absolute(stderr_path).string()) +
          "}\n";
  // A write to a server that died gets EPIPE, not SIGPIPE.
  struct sigaction ign {}, old {};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &old);
  bool sent = std::fputs(line.c_str(), s.req) >= 0 && std::fflush(s.req) == 0;
  sigaction(SIGPIPE, &old, nullptr);
  int status = -1;
  // "%d" only: a trailing "\n" in the format would wait for the next non-space character.
  if (!sent || std::fscanf(s.ans, "%d", &status) != 1 || std::fgetc(s.ans) != '\n') {
    s.stop();
    return -1;
  }
  return status;
}

/// Run Python source `code` with `args`; returns the exit status, what it printed on stdout in `*out`
/// and on stderr in `*err` (each if given).
inline int python_code(const std::string &code, const std::vector<std::string> &args = {},
                       std::string *out = nullptr, std::string *err = nullptr) {
  char tmpl[] = "/tmp/ca_py_XXXXXX";
  char *d = mkdtemp(tmpl);
  if (!d) return -1;
  const std::string dir(d), file = dir + "/script.py", out_file = dir + "/stdout.txt", err_file = dir + "/stderr.txt";
  {
    std::ofstream f(file, std::ios::binary);
    f << code;
  }
  int rc = python_run(file, args, out_file, err_file);
  auto slurp = [](const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  if (out) *out = slurp(out_file);
  if (err) *err = slurp(err_file);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return rc;
}

}  // namespace ca::test
