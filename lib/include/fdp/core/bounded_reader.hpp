// Bounded reading of the files a user names: curve CSVs, audit sample files,
// plans and statistics, ledgers. Every such reader goes through this, so that
// no input makes fdp read without end or hold an endless line in memory
// (`fdp compose curve:file=/dev/zero` grew to 17 GB: /dev/zero is one line of
// NUL bytes that never ends, and std::getline kept all of it).
//
// Lines are returned as views into a read buffer of 4 MiB (the file's size + 1
// for smaller regular files), grown only for a longer line and never beyond
// twice the reader's line limit, so memory does not depend on the input. A
// line longer than the limit, or a file longer than its byte limit, throws
// std::invalid_argument naming the file, the line and the limit:
//     curve file '/dev/zero': line 1 is longer than 65536 bytes
// Pipes and devices are read like files (a curve from <(...) works); only
// regular files can be read a second time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace fdp {

/// The default longest line, without its "\n" or "\r\n": 64 KiB, three orders
/// of magnitude above a line of a curve CSV or an audit plan's header.
inline constexpr std::size_t kMaxLineBytes = std::size_t{64} << 10;
/// "No limit on the file's size": the readers that take one say why.
inline constexpr std::uint64_t kUnlimitedBytes = ~std::uint64_t{0};

class bounded_line_reader {
 public:
  /// Opens `path`. `kind` names it in errors ("curve file" gives
  /// "curve file 'PATH': ..."). Throws std::invalid_argument if the file
  /// cannot be opened or is a directory.
  bounded_line_reader(const std::string& path, const std::string& kind,
                      std::size_t max_line = kMaxLineBytes,
                      std::uint64_t max_bytes = kUnlimitedBytes);
  /// Reads an open stream (it reads ahead: the stream is consumed to its end
  /// or to the buffer's). `name` prefixes errors as given.
  bounded_line_reader(std::istream& in, const std::string& name,
                      std::size_t max_line = kMaxLineBytes,
                      std::uint64_t max_bytes = kUnlimitedBytes);
  ~bounded_line_reader();
  bounded_line_reader(const bounded_line_reader&) = delete;
  bounded_line_reader& operator=(const bounded_line_reader&) = delete;

  /// The next line as [begin, end) without "\n" and a trailing '\r'; false at
  /// the end. The view is valid until the next call.
  bool next(const char*& begin, const char*& end);
  bool next(std::string& line);
  /// Changes the line limit for the lines still to come (a format whose
  /// first line is short can check it with a small limit, then allow long ones).
  void set_max_line(std::size_t max_line) { max_line_ = max_line; }

  /// 1-based number of the line last returned.
  std::uint64_t line() const { return line_; }
  std::uint64_t bytes_consumed() const { return consumed_; }
  /// File size in bytes (0 if unknown, e.g. a pipe).
  std::uint64_t size() const { return size_; }
  /// Whether the path is a regular file (can be read a second time).
  bool regular() const { return regular_; }
  const std::string& path() const { return path_; }
  /// The prefix of this reader's errors: "KIND 'PATH'".
  const std::string& name() const { return name_; }

 private:
  void open(const std::string& kind);
  void fill();
  std::size_t read_some(char* p, std::size_t n);
  [[noreturn]] void too_long(std::uint64_t lineno) const;
  bool finish_line(const char* b, const char* stop, std::size_t skip, const char*& begin,
                   const char*& end);
  std::string path_, name_;
  std::istream* in_ = nullptr;
  int fd_ = -1;
  std::size_t max_line_;
  std::uint64_t max_bytes_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  bool regular_ = false;
  std::uint64_t line_ = 0, consumed_ = 0, size_ = 0;
};

/// The whole file, for a format that is not line-oriented (the ledger's JSON):
/// at most `max_bytes`, else std::invalid_argument naming the file and the
/// limit. Open errors as bounded_line_reader's. For a pipe or device,
/// `max_bytes` of address space is reserved (memory is used as data arrives).
std::string read_bounded_file(const std::string& path, const std::string& kind,
                              std::uint64_t max_bytes);

}  // namespace fdp
