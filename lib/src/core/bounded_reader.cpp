#include "fdp/core/bounded_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <istream>
#include <stdexcept>

namespace fdp {

namespace {

// Large enough that a file is read in few system calls; a file smaller than
// this gets a buffer of its size + 1 (zero-filling 4 MiB per open dominated
// small files: the sample-file fuzz target ran at ~10 inputs/s).
constexpr std::size_t kFileBuffer = std::size_t{4} << 20;
// A stream (in memory, as a rule) starts small and grows up to a line.
constexpr std::size_t kStreamBuffer = std::size_t{64} << 10;

struct opened {
  int fd;
  bool regular;
  std::uint64_t size;
};

/// Opens for reading; directories are refused here (read() on one fails
/// later with a less clear EISDIR).
opened open_file(const std::string& path, const std::string& name) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw std::invalid_argument(name + ": cannot be opened (" + std::strerror(errno) + ")");
  }
  opened f{fd, false, 0};
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      throw std::invalid_argument(name + ": is a directory");
    }
    if (S_ISREG(st.st_mode)) {
      f.regular = true;
      f.size = static_cast<std::uint64_t>(st.st_size);
    }
  }
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  return f;
}

/// read(2) without EINTR; 0 at the end.
std::size_t read_fd(int fd, char* p, std::size_t n, const std::string& name) {
  for (;;) {
    const ssize_t r = ::read(fd, p, n);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno != EINTR) {
      throw std::runtime_error(name + ": read error (" + std::strerror(errno) + ")");
    }
  }
}

[[noreturn]] void too_large(const std::string& name, std::uint64_t max_bytes,
                            const std::string& where) {
  throw std::invalid_argument(name + ": larger than " + std::to_string(max_bytes) +
                              " bytes (the limit" + where + ")");
}

}  // namespace

bounded_line_reader::bounded_line_reader(const std::string& path, const std::string& kind,
                                         std::size_t max_line, std::uint64_t max_bytes)
    : path_(path), name_(kind + " '" + path + "'"), max_line_(max_line), max_bytes_(max_bytes) {
  const opened f = open_file(path, name_);
  fd_ = f.fd;
  regular_ = f.regular;
  size_ = f.size;
  buf_.resize(size_ > 0 && size_ < kFileBuffer ? static_cast<std::size_t>(size_) + 1 : kFileBuffer);
}

bounded_line_reader::bounded_line_reader(std::istream& in, const std::string& name,
                                         std::size_t max_line, std::uint64_t max_bytes)
    : path_(name), name_(name), in_(&in), max_line_(max_line), max_bytes_(max_bytes) {
  buf_.resize(kStreamBuffer);
}

bounded_line_reader::~bounded_line_reader() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t bounded_line_reader::read_some(char* p, std::size_t n) {
  if (!in_) return read_fd(fd_, p, n, name_);
  in_->read(p, static_cast<std::streamsize>(n));
  if (in_->bad()) throw std::runtime_error(name_ + ": read error");
  return static_cast<std::size_t>(in_->gcount());
}

void bounded_line_reader::fill() {
  // Move the unread tail to the front, then read as much as fits. A full
  // buffer holds a partial line within the limit (next() checked): grow it,
  // to at most the longest line with its "\r\n".
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (end_ == buf_.size()) buf_.resize(std::min(buf_.size() * 2, max_line_ + 2));
  while (end_ < buf_.size()) {
    const std::size_t r = read_some(buf_.data() + end_, buf_.size() - end_);
    if (r == 0) {
      eof_ = true;
      break;
    }
    end_ += r;
  }
}

void bounded_line_reader::too_long(std::uint64_t lineno) const {
  throw std::invalid_argument(name_ + ": line " + std::to_string(lineno) + " is longer than " +
                              std::to_string(max_line_) + " bytes");
}

bool bounded_line_reader::finish_line(const char* b, const char* stop, std::size_t skip,
                                      const char*& begin, const char*& end) {
  begin = b;
  end = stop;
  if (end > begin && end[-1] == '\r') --end;
  if (static_cast<std::size_t>(end - begin) > max_line_) too_long(line_ + 1);
  const std::size_t len = static_cast<std::size_t>(stop - b) + skip;
  pos_ += len;
  consumed_ += len;
  ++line_;
  if (consumed_ > max_bytes_) {
    too_large(name_, max_bytes_, "; reached at line " + std::to_string(line_));
  }
  return true;
}

bool bounded_line_reader::next(const char*& begin, const char*& end) {
  for (;;) {
    const char* start = buf_.data() + pos_;
    const std::size_t avail = end_ - pos_;
    const void* nl = std::memchr(start, '\n', avail);
    if (nl) return finish_line(start, static_cast<const char*>(nl), 1, begin, end);
    if (eof_) {
      if (avail == 0) return false;
      return finish_line(start, start + avail, 0, begin, end);  // no newline at the end
    }
    // Refused before reading on: an endless line (/dev/zero) ends here.
    // (+1: the '\r' of a "\r\n" line is not part of it)
    if (avail > max_line_ + 1) too_long(line_ + 1);
    fill();
  }
}

bool bounded_line_reader::next(std::string& line) {
  const char *b, *e;
  if (!next(b, e)) return false;
  line.assign(b, e);
  return true;
}

std::string read_bounded_file(const std::string& path, const std::string& kind,
                              std::uint64_t max_bytes) {
  const std::string name = kind + " '" + path + "'";
  const opened f = open_file(path, name);
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } guard{f.fd};
  // A regular file is refused by its size, before anything is read.
  if (f.regular && f.size > max_bytes) too_large(name, max_bytes, "");
  // Reserved once (address space: pages count as they are filled), so that
  // growing by doubling never holds two copies of a file near the limit.
  std::string out;
  out.reserve(static_cast<std::size_t>(f.regular ? f.size : max_bytes));
  char chunk[1 << 16];
  for (;;) {
    const std::size_t r = read_fd(f.fd, chunk, sizeof chunk, name);
    if (r == 0) return out;
    if (out.size() + r > max_bytes) too_large(name, max_bytes, "");
    out.append(chunk, r);
  }
}

}  // namespace fdp
