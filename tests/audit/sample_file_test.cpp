// Sample files: the parser, the streaming reader, and every bad-input path
// of audit_files (messages name the file and line).
#include "fdp/audit/sample_file.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "fdp/audit/audit.hpp"

namespace fdp::audit {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "fdp_audit_" + name;
  std::ofstream f(path, std::ios::binary);
  f << text;
  return path;
}

/// The message of audit_files' std::invalid_argument on two sample files.
std::string audit_error(const std::string& p0, const std::string& p1) {
  audit_options o;
  o.threads = 1;
  try {
    audit_files(p0, p1, eps_delta(1.0), o);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

int parse(const std::string& s, std::vector<double>& v) {
  return parse_numbers(s.data(), s.data() + s.size(), v);
}

TEST(ParseNumbers, Kinds) {
  std::vector<double> v;
  EXPECT_EQ(parse("0.25", v), 1);
  EXPECT_EQ(v, (std::vector<double>{0.25}));
  EXPECT_EQ(parse("-3e-7, 2 ,+1", v), 1);
  EXPECT_EQ(v, (std::vector<double>{-3e-7, 2, 1}));
  EXPECT_EQ(parse("0.1", v), 1);
  EXPECT_EQ(v[0], 0.1);  // exact round trip
  EXPECT_EQ(parse("r3", v), 0);
  EXPECT_EQ(parse("TTF-", v), 0);
  EXPECT_EQ(parse("3abc", v), 0);
  // Non-finite numbers are outputs, mapped to finite sentinels (sample_file.hpp).
  const double big = std::numeric_limits<double>::max();
  EXPECT_EQ(parse("nan", v), 1);
  EXPECT_EQ(v[0], std::nextafter(-big, 0.0));
  EXPECT_EQ(parse("inf", v), 1);
  EXPECT_EQ(v[0], big);
  EXPECT_EQ(parse("-Infinity", v), 1);
  EXPECT_EQ(v[0], -big);
  EXPECT_EQ(parse("1,nan", v), 1);
  EXPECT_EQ(v, (std::vector<double>{1, std::nextafter(-big, 0.0)}));
  EXPECT_EQ(parse("1e999", v), -1);
  EXPECT_EQ(parse("1,x", v), -2);
  EXPECT_EQ(parse("1,", v), -2);
  EXPECT_EQ(parse("1,,2", v), -2);
}

TEST(LineReader, EndingsAndLongLines) {
  const std::string longline(kMaxSampleLineBytes, '7');  // the longest line allowed
  const auto path = write_file("lines.txt", "a\r\nb\n\n" + longline + "\nlast");
  line_reader r(path);
  const char *b, *e;
  std::vector<std::string> got;
  while (r.next(b, e)) got.emplace_back(b, e);
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0], "a");
  EXPECT_EQ(got[1], "b");
  EXPECT_EQ(got[2], "");
  EXPECT_EQ(got[3].size(), longline.size());
  EXPECT_EQ(got[4], "last");
  EXPECT_EQ(r.line(), 5u);
  std::remove(path.c_str());
  EXPECT_THROW(line_reader("/nonexistent/fdp/file"), std::invalid_argument);
}

TEST(LineReader, LinesBeyondTheLimitAreRefused) {
  // 10 MiB without a newline (longer than the 4 MiB buffer, which used to
  // double for it); /dev/zero is such a line without end.
  const auto path = write_file("wide.txt", "1\n" + std::string(10 << 20, '7'));
  const auto one = write_file("one.txt", "1\n");
  EXPECT_NE(audit_error(path, one).find("sample file '" + path +
                                        "': line 2 is longer than 1048576 bytes"),
            std::string::npos);
  EXPECT_NE(audit_error("/dev/zero", one)
                .find("sample file '/dev/zero': line 1 is longer than 1048576 bytes"),
            std::string::npos);
  std::remove(path.c_str());
  std::remove(one.c_str());
}

std::string expect_error(const std::string& t0, const std::string& t1) {
  return audit_error(write_file("e0.txt", t0), write_file("e1.txt", t1));
}

TEST(AuditFiles, BadInputNamesFileAndLine) {
  std::string many = "";
  for (int i = 0; i < 50; ++i) many += std::to_string(i) + "\n";
  EXPECT_NE(expect_error(many + "abc\n", many).find("e0.txt:51: mixed output types"),
            std::string::npos);
  EXPECT_NE(expect_error(many, "r1\nr2\n3\n").find("e1.txt:3: mixed output types"),
            std::string::npos);
  EXPECT_NE(expect_error("", many).find("empty sample file"), std::string::npos);
  EXPECT_NE(expect_error(many, "1\n1e999\n").find("e1.txt:2: number out of the range"),
            std::string::npos);
  EXPECT_NE(expect_error(many, "1\n\n\n2\n").find("e1.txt:2: empty line"), std::string::npos);
  EXPECT_NE(expect_error(many, "\n\n").find("empty sample file"), std::string::npos);
  EXPECT_NE(expect_error("1,2\n3,4\n5\n", "1,2\n")
                .find("e0.txt:3: vector of length 1 '5', but line 1 has length 2"),
            std::string::npos);
  EXPECT_NE(expect_error("5\n1,2\n", "1\n").find("e0.txt:2: vector of length 2"),
            std::string::npos);
  EXPECT_NE(expect_error("1,2\n3,4,5\n", "1,2\n").find("length 3"), std::string::npos);
  EXPECT_NE(expect_error(many, "1\n\n2\n").find("e1.txt:2: empty line"), std::string::npos);
  EXPECT_NE(expect_error("a,b\n", "a\n").find("e0.txt:1: malformed"), std::string::npos);
  EXPECT_NE(expect_error("1,x\n", "1\n").find("e0.txt:1: malformed"), std::string::npos);
  EXPECT_NE(expect_error(many, "r1\nr2\n").find("different kinds of output"), std::string::npos);
  EXPECT_NE(expect_error("1,2\n", "1,2,3\n").find("different kinds"), std::string::npos);
}

TEST(AuditFiles, TokensAndNumbersAudit) {
  // Randomized-response-like tokens with a clear difference: a violation of eps = 0.1.
  std::string a, b;
  for (int i = 0; i < 20000; ++i) {
    a += (i % 4 == 0) ? "yes\n" : "no\n";
    b += (i % 4 != 0) ? "yes\n" : "no\n";
  }
  const auto p0 = write_file("t0.txt", a), p1 = write_file("t1.txt", b);
  audit_options o;
  const auto rep = audit_files(p0, p1, eps_delta(0.1), o);
  EXPECT_EQ(rep.result.verdict, "violation");
  EXPECT_EQ(rep.samples[0], 20000u);
  EXPECT_EQ(rep.result.selection[0] + rep.result.evaluation[0], 20000u);
  EXPECT_EQ(rep.result.selection[0], selection_count(20000, 0.1));
  EXPECT_GT(rep.result.epsilon_lower, 0.9);  // true eps = ln 3
  EXPECT_LT(rep.result.epsilon_lower, std::log(3.0));
  // Identical number files: consistent with any claim; CRLF and no final newline.
  std::string c;
  for (int i = 0; i < 5000; ++i) c += std::to_string((i * 7919) % 1000 / 1000.0) + "\r\n";
  c += "0.5";
  const auto q0 = write_file("n0.txt", c), q1 = write_file("n1.txt", c);
  const auto r2 = audit_files(q0, q1, eps_delta(0.1), o);
  EXPECT_EQ(r2.result.verdict, "consistent");
  EXPECT_EQ(r2.samples[1], 5001u);
  // Constant outputs on both sides: no test can be formed; consistent.
  std::string k;
  for (int i = 0; i < 1000; ++i) k += "7\n";
  const auto c0 = write_file("c0.txt", k), c1 = write_file("c1.txt", k);
  const auto r3 = audit_files(c0, c1, eps_delta(0.1), o);
  EXPECT_EQ(r3.result.verdict, "consistent");
  EXPECT_EQ(r3.result.epsilon_lower, 0.0);
  // Constant outputs, but too few to refute even a weak claim: inconclusive,
  // with the sample count that would be needed.
  std::string k100;
  for (int i = 0; i < 100; ++i) k100 += "7\n";
  const auto e0 = write_file("e0.txt", k100), e1 = write_file("e1.txt", k100);
  const auto r4 = audit_files(e0, e1, eps_delta(5), o);
  EXPECT_EQ(r4.result.verdict, "inconclusive");
  ASSERT_TRUE(r4.result.samples_needed.has_value());
  EXPECT_GT(*r4.result.samples_needed, 100.0);
  EXPECT_EQ(audit_files(e0, e1, eps_delta(0.1), o).result.verdict, "consistent");
  // Too few lines: inconclusive.
  const auto d0 = write_file("d0.txt", "1\n2\n"), d1 = write_file("d1.txt", "3\n");
  EXPECT_EQ(audit_files(d0, d1, eps_delta(0.1), o).result.verdict, "inconclusive");
  for (const auto& p : {p0, p1, q0, q1, c0, c1, d0, d1, e0, e1}) std::remove(p.c_str());
}

TEST(AuditFiles, HeaderTrailingBlanksAndNonFiniteOutputs) {
  std::string body;
  for (int i = 0; i < 3000; ++i) body += std::to_string(i % 50) + "\n";
  audit_options o;
  o.threads = 1;
  o.skip_header = true;
  const auto h0 = write_file("h0.txt", "score\n" + body + "\n\n"),
             h1 = write_file("h1.txt", "score\n" + body);
  const auto r = audit_files(h0, h1, eps_delta(0.1), o);
  EXPECT_EQ(r.samples[0], 3000u);  // header and trailing blank lines are not outputs
  EXPECT_EQ(r.samples[1], 3000u);
  EXPECT_EQ(r.result.verdict, "consistent");
  o.skip_header = false;  // the header then reads as a token line among numbers
  EXPECT_THROW(audit_files(h0, h1, eps_delta(0.1), o), std::invalid_argument);
  // An implementation that returns inf on one input only (1 line in 7)
  // leaks through it: the files are accepted and the leak is found.
  // (Every 7th line, so that the selection split, every 10th, sees some.)
  std::string a, b;
  for (int i = 0; i < 20000; ++i) {
    a += (i % 7 == 3) ? "inf\n" : std::to_string(i % 50) + "\n";
    b += (i % 7 == 3) ? "nan\n" : std::to_string(i % 50) + "\n";
  }
  const auto n0 = write_file("inf0.txt", a), n1 = write_file("inf1.txt", b);
  const auto v = audit_files(n0, n1, eps_delta(1.0), o);
  EXPECT_EQ(v.result.verdict, "violation");
  EXPECT_GT(v.result.epsilon_lower, 3.0);
  for (const auto& p : {h0, h1, n0, n1}) std::remove(p.c_str());
}

}  // namespace
}  // namespace fdp::audit
