#include "budget/ledger_io.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "fdp/budget/ledger.hpp"
#include "fdp/core/bounded_reader.hpp"

namespace fdp::detail {

// ------------------------------------------------------------------ JSON

const jvalue* jvalue::find(const std::string& key) const {
  for (const auto& kv : obj)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

namespace {

class parser {
 public:
  explicit parser(const std::string& t) : t_(t) {}

  jvalue document() {
    jvalue v = value(0);
    ws();
    if (i_ != t_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("JSON at byte " + std::to_string(i_) + ": " + what);
  }
  // Input quoted in an error, cut short: a 100 MB number was echoed whole.
  static std::string excerpt(const std::string& s) {
    return s.size() <= 40 ? s : s.substr(0, 40) + "... (" + std::to_string(s.size()) + " bytes)";
  }
  void ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t'))
      ++i_;
  }
  char peek() {
    ws();
    if (i_ >= t_.size()) fail("unexpected end of input (truncated?)");
    return t_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  jvalue value(int depth) {
    if (depth > 64) fail("nesting too deep");
    const char c = peek();
    jvalue v;
    if (c == '{') {
      v.k = jvalue::kind::object;
      ++i_;
      if (peek() == '}') {
        ++i_;
        return v;
      }
      for (;;) {
        if (peek() != '"') fail("expected a key string");
        std::string key = string_lit();
        for (const auto& kv : v.obj)
          if (kv.first == key) fail("duplicate key \"" + excerpt(key) + "\"");
        expect(':');
        v.obj.emplace_back(std::move(key), value(depth + 1));
        const char d = peek();
        ++i_;
        if (d == '}') break;
        if (d != ',') fail("expected ',' or '}'");
      }
      return v;
    }
    if (c == '[') {
      v.k = jvalue::kind::array;
      ++i_;
      if (peek() == ']') {
        ++i_;
        return v;
      }
      for (;;) {
        v.arr.push_back(value(depth + 1));
        const char d = peek();
        ++i_;
        if (d == ']') break;
        if (d != ',') fail("expected ',' or ']'");
      }
      return v;
    }
    if (c == '"') {
      v.k = jvalue::kind::string;
      v.str = string_lit();
      return v;
    }
    if (t_.compare(i_, 4, "true") == 0) {
      i_ += 4;
      v.k = jvalue::kind::boolean;
      v.b = true;
      return v;
    }
    if (t_.compare(i_, 5, "false") == 0) {
      i_ += 5;
      v.k = jvalue::kind::boolean;
      return v;
    }
    if (t_.compare(i_, 4, "null") == 0) {
      i_ += 4;
      return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t s = i_;
      if (t_[i_] == '-') ++i_;
      while (i_ < t_.size() && std::strchr("0123456789.eE+-", t_[i_])) ++i_;
      const std::string num = t_.substr(s, i_ - s);
      char* end = nullptr;
      errno = 0;
      const double x = std::strtod(num.c_str(), &end);
      if (end != num.c_str() + num.size() || !std::isfinite(x)) {
        i_ = s;
        fail("bad number '" + excerpt(num) + "'");
      }
      v.k = jvalue::kind::number;
      v.num = x;
      return v;
    }
    fail(std::string("unexpected character '") + c + "'");
  }
  std::string string_lit() {
    ++i_;  // opening quote
    std::string out;
    for (;;) {
      if (i_ >= t_.size()) fail("unterminated string (truncated?)");
      const char c = t_[i_++];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (i_ >= t_.size()) fail("unterminated escape");
      const char e = t_[i_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          if (i_ + 4 > t_.size()) fail("bad \\u escape");
          const unsigned long cp = std::strtoul(t_.substr(i_, 4).c_str(), nullptr, 16);
          i_ += 4;
          if (cp >= 0xD800 && cp <= 0xDFFF) fail("surrogate escapes are not supported");
          if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          }
          break;
        }
        default:
          fail(std::string("bad escape '\\") + e + "'");
      }
    }
    return out;
  }

  const std::string& t_;
  std::size_t i_ = 0;
};

}  // namespace

jvalue parse_json(const std::string& text) { return parser(text).document(); }

void write_json_string(std::string& out, const std::string& s) {
  out.push_back('"');
  for (const unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

std::string json_number(double x) {
  // the shortest of %.15g .. %.17g that reads back as the same double
  char buf[40];
  for (int prec = 15; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

// ------------------------------------------------------------------ files

std::string read_file(const std::string& path) {
  return read_bounded_file(path, "ledger file", kMaxLedgerBytes);
}

namespace {
void write_all(int fd, const char* p, std::size_t n, const std::string& what) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(what + ": write failed (" + std::strerror(errno) + ")");
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}
}  // namespace

namespace {
std::atomic<write_hook> g_write_hook{nullptr};
}  // namespace

// (flock on a file of its own: the ledger itself is replaced by rename on
// every save, and a lock on the old inode would not exclude a process that
// opens the new one)
int lock_ledger(const std::string& path) {
  const std::string lock_path = path + ".lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::invalid_argument("ledger file '" + path + "': cannot create its lock file '" +
                                lock_path + "' (" + std::strerror(errno) + ")");
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int e = errno;
    ::close(fd);
    throw std::invalid_argument("ledger file '" + path + "': cannot lock '" + lock_path + "' (" +
                                std::strerror(e) + ")");
  }
  return fd;
}

// Under the lock no other fdp is saving this ledger (every save of the CLI
// holds it), so a PATH.tmp.* file is what a writer killed before its rename
// left behind: removed, and counted so that the caller can say so.
int remove_stale_temporaries(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) == 0) stale.push_back(name);
  }
  ::closedir(d);
  int removed = 0;
  for (const auto& name : stale)
    if (::unlink((dir + "/" + name).c_str()) == 0) ++removed;
  return removed;
}

void unlock_ledger(int fd) {
  if (fd >= 0) ::close(fd);  // (closing the descriptor releases the flock)
}

void set_atomic_write_hook(write_hook hook) { g_write_hook.store(hook); }

void atomic_write(const std::string& path, const std::string& content) {
  const auto slash = path.find_last_of('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::random_device rd;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::invalid_argument("ledger file '" + path + "': cannot create a temporary file in '" +
                                dir + "' (" + std::strerror(errno) + ")");
  }
  const write_hook hook = g_write_hook.load();
  try {
    std::size_t done = 0;
    if (hook) {
      done = content.size() / 2;
      write_all(fd, content.data(), done, "ledger file '" + tmp + "'");
      ::fsync(fd);
      hook(write_point::mid_write);
    }
    write_all(fd, content.data() + done, content.size() - done, "ledger file '" + tmp + "'");
    if (::fsync(fd) != 0)
      throw std::runtime_error("ledger file '" + tmp + "': fsync failed (" + std::strerror(errno) +
                               ")");
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error("ledger file '" + tmp + "': close failed (" + std::strerror(errno) +
                             ")");
  }
  if (hook) hook(write_point::before_rename);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("ledger file '" + path + "': rename failed (" + std::strerror(e) +
                             ")");
  }
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace fdp::detail
