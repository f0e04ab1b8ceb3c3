// Tests for fdp/core/bounded_reader.hpp: lines and their endings, the line
// and file limits (exactly at the limit is accepted, one byte more is not),
// files without a newline, endless sources (/dev/zero), streams, whole files.
#include "fdp/core/bounded_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fdp {
namespace {

class temp_file {
 public:
  temp_file(const std::string& name, const std::string& text)
      : path_(::testing::TempDir() + "fdp_bounded_" + std::to_string(::getpid()) + "_" + name) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~temp_file() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> all_lines(bounded_line_reader& r) {
  std::vector<std::string> out;
  std::string line;
  while (r.next(line)) out.push_back(line);
  return out;
}

/// The message of the std::invalid_argument that f throws ("" if none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(BoundedLineReader, LinesAndEndings) {
  const temp_file f("endings.txt", "a\r\nb\n\n c \nlast");
  bounded_line_reader r(f.path(), "test file");
  EXPECT_EQ(all_lines(r), (std::vector<std::string>{"a", "b", "", " c ", "last"}));
  EXPECT_EQ(r.line(), 5u);
  EXPECT_EQ(r.bytes_consumed(), 14u);
  EXPECT_TRUE(r.regular());
  EXPECT_EQ(r.size(), 14u);
  EXPECT_EQ(r.name(), "test file '" + f.path() + "'");
}

TEST(BoundedLineReader, TrailingNewlineAndBlankLine) {
  const temp_file one("one.txt", "x\n"), blank("blank.txt", "x\n\n"), empty("empty.txt", "");
  bounded_line_reader r1(one.path(), "test file"), r2(blank.path(), "test file"),
      r3(empty.path(), "test file");
  EXPECT_EQ(all_lines(r1), (std::vector<std::string>{"x"}));
  EXPECT_EQ(all_lines(r2), (std::vector<std::string>{"x", ""}));
  EXPECT_TRUE(all_lines(r3).empty());
}

TEST(BoundedLineReader, LineAtTheLimitIsAcceptedOneMoreByteIsNot) {
  const std::string at(kMaxLineBytes, 'x');
  // "\r\n" does not count: a CRLF line of exactly the limit is accepted too
  const temp_file ok("at_limit.txt", "1\n" + at + "\r\n" + at + "\n" + at);
  bounded_line_reader r(ok.path(), "test file");
  const auto lines = all_lines(r);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], at);
  EXPECT_EQ(lines[3], at);

  for (const std::string tail : {"\n2\n", "\r\n", ""}) {
    const temp_file over("over.txt", "1\n" + at + "y" + tail);
    const std::string m = error_of([&] {
      bounded_line_reader o(over.path(), "curve file");
      all_lines(o);
    });
    EXPECT_EQ(m, "curve file '" + over.path() + "': line 2 is longer than 65536 bytes") << tail;
  }
}

TEST(BoundedLineReader, FileWithoutNewline) {
  const temp_file small("no_newline.txt", "0.5,0.25");
  bounded_line_reader r(small.path(), "test file");
  EXPECT_EQ(all_lines(r), (std::vector<std::string>{"0.5,0.25"}));

  // 10 MiB without a newline: more than the 4 MiB buffer, refused at line 1
  const temp_file big("big_no_newline.txt", std::string(10 << 20, '7'));
  bounded_line_reader b(big.path(), "sample file");
  const char *p, *e;
  EXPECT_EQ(error_of([&] { b.next(p, e); }),
            "sample file '" + big.path() + "': line 1 is longer than 65536 bytes");
}

TEST(BoundedLineReader, LongLinesWithinALargerLimit) {
  // A line longer than the buffer grows it (up to the limit), in a file and
  // in a stream (whose buffer starts at 64 KiB).
  const std::string line(5 << 20, '7');
  const temp_file f("long_ok.txt", "a\n" + line + "\nb\n");
  bounded_line_reader r(f.path(), "test file", std::size_t{6} << 20);
  const auto lines = all_lines(r);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1].size(), line.size());
  EXPECT_EQ(lines[2], "b");

  std::istringstream in("a\n" + line + "\nb");
  bounded_line_reader s(in, "mem", std::size_t{6} << 20);
  EXPECT_EQ(all_lines(s).size(), 3u);
}

TEST(BoundedLineReader, EndlessSourceEndsAtTheLineLimit) {
  // /dev/zero is one endless line of NUL bytes; std::getline kept all of it.
  // The reader gives up after at most its 4 MiB buffer.
  bounded_line_reader r("/dev/zero", "curve file");
  EXPECT_FALSE(r.regular());
  const char *p, *e;
  EXPECT_EQ(error_of([&] { r.next(p, e); }),
            "curve file '/dev/zero': line 1 is longer than 65536 bytes");
  bounded_line_reader tiny("/dev/zero", "x", 16);
  EXPECT_EQ(error_of([&] { tiny.next(p, e); }), "x '/dev/zero': line 1 is longer than 16 bytes");
}

TEST(BoundedLineReader, FileSizeLimit) {
  const temp_file f("sized.txt", "12\n45\n78");  // 8 bytes
  bounded_line_reader ok(f.path(), "test file", kMaxLineBytes, 8);
  EXPECT_EQ(all_lines(ok).size(), 3u);
  bounded_line_reader over(f.path(), "test file", kMaxLineBytes, 7);
  std::string line;
  ASSERT_TRUE(over.next(line));
  ASSERT_TRUE(over.next(line));
  EXPECT_EQ(error_of([&] { over.next(line); }),
            "test file '" + f.path() + "': larger than 7 bytes (the limit; reached at line 3)");
}

TEST(BoundedLineReader, ShortFirstLineThenLongerLines) {
  const temp_file f("header.txt", "head\n" + std::string(100, 'x') + "\n");
  bounded_line_reader r(f.path(), "test file", 8);
  std::string line;
  ASSERT_TRUE(r.next(line));
  r.set_max_line(1000);
  ASSERT_TRUE(r.next(line));
  EXPECT_EQ(line.size(), 100u);
}

TEST(BoundedLineReader, OpenErrors) {
  const std::string missing = ::testing::TempDir() + "fdp_bounded_does_not_exist.txt";
  EXPECT_EQ(error_of([&] { bounded_line_reader r(missing, "curve file"); }),
            "curve file '" + missing + "': cannot be opened (No such file or directory)");
  EXPECT_EQ(error_of([&] { bounded_line_reader r("/", "curve file"); }),
            "curve file '/': is a directory");
}

TEST(ReadBoundedFile, LimitIsExact) {
  const temp_file f("whole.json", "{\"a\": 1}");  // 8 bytes, no newline
  EXPECT_EQ(read_bounded_file(f.path(), "ledger file", 8), "{\"a\": 1}");
  EXPECT_EQ(error_of([&] { read_bounded_file(f.path(), "ledger file", 7); }),
            "ledger file '" + f.path() + "': larger than 7 bytes (the limit)");
  EXPECT_EQ(read_bounded_file(temp_file("empty.json", "").path(), "ledger file", 8), "");
}

TEST(ReadBoundedFile, EndlessSourceEndsAtTheLimit) {
  EXPECT_EQ(error_of([] { read_bounded_file("/dev/zero", "ledger file", 1 << 20); }),
            "ledger file '/dev/zero': larger than 1048576 bytes (the limit)");
  EXPECT_EQ(error_of([] { read_bounded_file("/", "ledger file", 1 << 20); }),
            "ledger file '/': is a directory");
}

}  // namespace
}  // namespace fdp
