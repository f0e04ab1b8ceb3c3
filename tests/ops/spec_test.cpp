// Tests for fdp/ops/spec.hpp: the spec grammar NAME[:KEY=VALUE,...], the
// closed-form trade-off of one application, and curve files. Every error is a
// std::invalid_argument whose message names the spec (or file) and the key.
#include "fdp/ops/spec.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <clocale>
#include <limits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "fdp/core/bounded_reader.hpp"

namespace fdp {
namespace {

// A file in gtest's temporary directory, removed at the end of the test.
class temp_file {
 public:
  temp_file(const std::string& name, const std::string& content)
      : path_(::testing::TempDir() + "fdp_spec_test_" + std::to_string(::getpid()) + "_" + name) {
    std::ofstream(path_) << content;
  }
  ~temp_file() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

template <class F>
void expect_invalid(F fn, const std::vector<std::string>& needles, const std::string& call) {
  try {
    fn();
    ADD_FAILURE() << call << ": no exception";
  } catch (const std::invalid_argument& e) {
    for (const auto& n : needles) {
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
          << call << ": message '" << e.what() << "' does not contain '" << n << "'";
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << call << ": wrong exception type: " << e.what();
  }
}
#define EXPECT_INVALID(call, ...) expect_invalid([&] { (void)(call); }, {__VA_ARGS__}, #call)

// parse_spec + single_tradeoff: the errors that only appear when values are used.
void use(const std::string& text) { (void)single_tradeoff(parse_spec(text)); }

// ---------------------------------------------------------------- happy paths

TEST(SpecParse, Shapes) {
  const spec g = parse_spec("gdp:mu=1");
  EXPECT_EQ(g.name, "gdp");
  EXPECT_EQ(g.text, "gdp:mu=1");
  EXPECT_EQ(g.params.at("mu"), "1");
  EXPECT_EQ(g.times, 1);
  EXPECT_EQ(g.number("mu", 0, 1e300), 1.0);

  const spec e = parse_spec("epsdelta:eps=1.5,delta=1e-5,times=10");
  EXPECT_EQ(e.times, 10);
  EXPECT_EQ(e.params.size(), 2u);  // times is not a param
  EXPECT_EQ(e.number("delta", 0, 1), 1e-5);
  EXPECT_EQ(e.number_or("missing", 7.0, 0, 10), 7.0);

  const spec s = parse_spec("subsampled-gaussian:sigma=1.1,q=0.004,times=14062");
  EXPECT_EQ(s.times, 14062);
  EXPECT_TRUE(s.has("q"));
  EXPECT_FALSE(single_tradeoff(s).has_value());  // numeric only
  EXPECT_FALSE(single_tradeoff(parse_spec("subsampled-laplace:b=1,q=0.1")).has_value());

  EXPECT_EQ(parse_spec("id").params.size(), 0u);
  EXPECT_EQ(parse_spec("gdp:times=1000000000000,mu=2").times, 1000000000000LL);
  // Key order does not matter.
  EXPECT_EQ(parse_spec("laplace:sensitivity=2,b=4").params.at("b"), "4");
}

TEST(SpecParse, SingleTradeoffs) {
  auto get = [](const std::string& t) { return single_tradeoff(parse_spec(t)).value(); };
  EXPECT_DOUBLE_EQ(std::get<gaussian>(get("gdp:mu=0.5").get()).mu, 0.5);
  EXPECT_DOUBLE_EQ(std::get<gaussian>(get("gaussian:sigma=4").get()).mu, 0.25);
  EXPECT_DOUBLE_EQ(std::get<gaussian>(get("gaussian:sigma=4,sensitivity=2").get()).mu, 0.5);
  EXPECT_DOUBLE_EQ(std::get<laplace>(get("laplace:b=2").get()).mu, 0.5);
  EXPECT_DOUBLE_EQ(std::get<laplace>(get("laplace:b=2,sensitivity=3").get()).mu, 1.5);
  const auto ed = std::get<eps_delta>(get("epsdelta:eps=1").get());
  EXPECT_EQ(ed.eps, 1.0);
  EXPECT_EQ(ed.delta, 0.0);
  EXPECT_EQ(std::get<eps_delta>(get("epsdelta:eps=1,delta=0.25").get()).delta, 0.25);
  EXPECT_TRUE(std::holds_alternative<identity>(get("id").get()));
  EXPECT_TRUE(std::holds_alternative<gaussian>(get("gdp:mu=0").get()));  // mu = 0 is allowed
}

TEST(SpecParse, CurveFile) {
  const temp_file f("good.csv",
                    "# a comment\n"
                    "alpha,beta\n"
                    "0,1\n"
                    "  0.1 , 0.5\r\n"
                    "\n"
                    "0.5,0.1\n"
                    "1,0\n");
  const auto t = single_tradeoff(parse_spec("curve:file=" + f.path())).value();
  const curve& c = std::get<curve>(t.get());
  EXPECT_EQ(c.size(), 4u);
  EXPECT_DOUBLE_EQ(beta(c, 0.3), 0.3);
  // Without header, ends added automatically.
  const temp_file g("bare.csv", "0.2,0.4\n");
  EXPECT_EQ(read_curve_csv(g.path()).size(), 3u);
}

TEST(SpecParse, Kinds) {
  std::vector<std::string> names;
  for (const auto& k : spec_kinds()) names.push_back(k.name);
  for (const char* n : {"gdp", "epsdelta", "laplace", "gaussian", "subsampled-gaussian",
                        "subsampled-laplace", "curve", "id"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
}

// --------------------------------------------------------------------- errors

TEST(SpecErrors, Grammar) {
  EXPECT_INVALID(parse_spec("gdpp:mu=1"), "spec 'gdpp:mu=1'", "unknown name 'gdpp'", "gdp");
  EXPECT_INVALID(parse_spec(""), "unknown name ''");
  EXPECT_INVALID(parse_spec("gdp:sigma=1"), "spec 'gdp:sigma=1'", "unknown key 'sigma'",
                 "allowed: mu, times");
  EXPECT_INVALID(parse_spec("gdp:mu=1,mu=2"), "key 'mu' repeated");
  EXPECT_INVALID(parse_spec("gdp:mu=1,times=2,times=3"), "key 'times' repeated");
  EXPECT_INVALID(parse_spec("gdp"), "spec 'gdp'", "missing required key 'mu'");
  EXPECT_INVALID(parse_spec("subsampled-gaussian:sigma=1"), "missing required key 'q'");
  EXPECT_INVALID(parse_spec("laplace:sensitivity=1"), "missing required key 'b'");
  EXPECT_INVALID(parse_spec("gdp:"), "nothing after ':'");
  EXPECT_INVALID(parse_spec("gdp:mu"), "'mu' is not KEY=VALUE");
  EXPECT_INVALID(parse_spec("gdp:=1"), "'=1' is not KEY=VALUE");
  EXPECT_INVALID(parse_spec("gdp:mu=1,"), "trailing ','");
  EXPECT_INVALID(parse_spec("gdp:mu=1,,times=2"), "is not KEY=VALUE");
}

TEST(SpecErrors, Times) {
  EXPECT_INVALID(parse_spec("gdp:mu=1,times=0"), "times", "'0'", "integer in [1, 1000000000000]");
  EXPECT_INVALID(parse_spec("gdp:mu=1,times=-3"), "times", "'-3'");
  EXPECT_INVALID(parse_spec("gdp:mu=1,times=1.5"), "times", "'1.5'");
  EXPECT_INVALID(parse_spec("gdp:mu=1,times=1e13"), "times", "'1e13'");
  EXPECT_INVALID(parse_spec("gdp:mu=1,times=ten"), "times", "'ten' is not a number");
  EXPECT_INVALID(parse_spec("gdp:mu=1,times="), "times", "empty value");
}

TEST(SpecErrors, MalformedAndOutOfRangeNumbers) {
  EXPECT_INVALID(use("gdp:mu=abc"), "spec 'gdp:mu=abc'", "mu", "'abc' is not a number");
  EXPECT_INVALID(use("gdp:mu=1x"), "'1x' is not a number");
  EXPECT_INVALID(use("gdp:mu= 1"), "' 1' is not a number");
  EXPECT_INVALID(use("gdp:mu="), "mu", "empty value");
  EXPECT_INVALID(use("gdp:mu=nan"), "mu", "must be finite");
  EXPECT_INVALID(use("gdp:mu=inf"), "mu", "must be finite");
  EXPECT_INVALID(use("gdp:mu=1e999"), "mu", "must be finite");
  EXPECT_INVALID(use("gdp:mu=-1"), "mu = -1 must be >= 0");
  EXPECT_INVALID(use("gdp:mu=1e301"), "mu = ", "must be <= 1");
  EXPECT_INVALID(use("epsdelta:eps=1,delta=2"), "delta = 2 must be in [0, 1]");
  EXPECT_INVALID(use("epsdelta:eps=-1"), "eps = -1 must be >= 0");
  EXPECT_INVALID(use("laplace:b=0"), "b = 0 must be > 0");
  EXPECT_INVALID(use("gaussian:sigma=-2"), "sigma = -2 must be > 0");
  EXPECT_INVALID(use("gaussian:sigma=1,sensitivity=x"), "sensitivity", "'x' is not a number");
}

TEST(SpecErrors, CurveFiles) {
  const std::string missing = ::testing::TempDir() + "fdp_spec_test_does_not_exist.csv";
  EXPECT_INVALID(use("curve:file=" + missing), "curve file '" + missing + "'", "cannot be opened");
  const temp_file nonconvex("nonconvex.csv", "0.1,0.5\n0.2,0.45\n0.3,0.1\n");
  EXPECT_INVALID(use("curve:file=" + nonconvex.path()), nonconvex.path(), "point 2", "not convex");
  const temp_file increasing("increasing.csv", "0.2,0.3\n0.4,0.5\n");
  EXPECT_INVALID(use("curve:file=" + increasing.path()), increasing.path(), "increases");
  const temp_file outside("outside.csv", "alpha,beta\n0.5,0.2\n1.5,0\n");
  EXPECT_INVALID(use("curve:file=" + outside.path()), "point 2", "alpha must be in [0, 1]");
  const temp_file bad("bad.csv", "0,1\n0.5\n");
  EXPECT_INVALID(use("curve:file=" + bad.path()), "line 2", "expected 'alpha,beta'");
  const temp_file three("three.csv", "0,1\n0.5,0.2,7\n");
  EXPECT_INVALID(use("curve:file=" + three.path()), "line 2", "two columns");
  const temp_file word("word.csv", "0,1\n0.5,low\n");
  EXPECT_INVALID(use("curve:file=" + word.path()), "line 2", "beta", "'low' is not a number");
  const temp_file empty("empty.csv", "# nothing\n");
  EXPECT_INVALID(use("curve:file=" + empty.path()), "no points");
}

TEST(SpecErrors, CurveFileLimits) {
  // /dev/zero is one endless line: refused at its first line, not read whole.
  EXPECT_INVALID(use("curve:file=/dev/zero"),
                 "curve file '/dev/zero': line 1 is longer than 65536 bytes");
  const temp_file wide("wide.csv", "0,1\n0.5," + std::string(kMaxLineBytes, '0') + "\n");
  EXPECT_INVALID(use("curve:file=" + wide.path()), "line 2 is longer than 65536 bytes");
  std::string many;
  for (std::size_t i = 0; i <= kMaxCurvePoints; ++i) many += "0,1\n";
  const temp_file too_many("many.csv", many);
  EXPECT_INVALID(use("curve:file=" + too_many.path()), "line 1000001", "more than 1000000 points");
  // unchanged: blank lines, a trailing blank line, CRLF and no final newline
  const temp_file blank("blank.csv", "alpha,beta\r\n0,1\r\n\r\n0.5,0.2\n1,0\n\n");
  EXPECT_NO_THROW(use("curve:file=" + blank.path()));
  const temp_file no_newline("no_newline.csv", "0,1\n0.5,0.2\n1,0");
  EXPECT_NO_THROW(use("curve:file=" + no_newline.path()));
}

TEST(SpecErrors, ParseHelpers) {
  EXPECT_EQ(parse_number("1e-5", "x"), 1e-5);
  EXPECT_EQ(parse_number("-0.25", "x"), -0.25);
  EXPECT_INVALID(parse_number("", "--mu"), "--mu", "empty value");
  EXPECT_INVALID(parse_number("1,5", "--mu"), "--mu", "'1,5' is not a number");
  // Decimal notation only: the forms strtod also reads are refused.
  EXPECT_EQ(parse_number("+.5", "x"), 0.5);
  EXPECT_EQ(parse_number("5.", "x"), 5.0);
  EXPECT_EQ(parse_number("2E+3", "x"), 2000.0);
  for (const char* bad : {"0x1p0", "0X10", "-0x1", " 1", "1 ", ".", "-", "e5", "1e", "1e+", "1.5.2",
                          "--1", "1e5x", "x"}) {
    EXPECT_INVALID(parse_number(bad, "--mu"), "--mu", std::string("'") + bad + "' is not a number");
  }
  for (const char* bad : {"inf", "-Infinity", "NaN", "nan(1)"})
    EXPECT_INVALID(parse_number(bad, "--mu"), "--mu", std::string("'") + bad + "' must be finite");
  EXPECT_INVALID(parse_number("1e400", "--mu"), "--mu", "must be finite");
  EXPECT_INVALID(parse_number("-0.001e312", "--mu"), "--mu", "must be finite");
  EXPECT_INVALID(parse_number("none", "--mu"), "--mu", "'none' is not a number");
  // below the double range: zero, as strtod reads it
  EXPECT_EQ(parse_number("1e-400", "x"), 0.0);
  EXPECT_EQ(parse_number("1000e-330", "x"), 0.0);
  EXPECT_EQ(parse_number("4.9e-324", "x"), std::numeric_limits<double>::denorm_min());
  // a zero is +0 whatever its sign ("mu = -0" was printed for -1e-400)
  for (const char* z : {"-0", "-0.0e5", "-1e-400"}) {
    EXPECT_EQ(parse_number(z, "x"), 0.0) << z;
    EXPECT_FALSE(std::signbit(parse_number(z, "x"))) << z;
  }
  // The decimal point is '.' whatever the program's locale (strtod under
  // de_DE reads "1.5" as 1). Where de_DE is not installed it is compiled
  // into a temporary LOCPATH with localedef (Debian's libc-bin), if present.
  bool de = std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr;
  const std::string locdir = "/tmp/fdp_spec_test_locale_" + std::to_string(::getpid());
  if (!de &&
      std::system(
          ("localedef -i de_DE -f UTF-8 " + locdir + "/de_DE.UTF-8 >/dev/null 2>&1").c_str()) ==
          0) {
    ::setenv("LOCPATH", locdir.c_str(), 1);
    de = std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr;
  }
  if (de) {
    EXPECT_EQ(std::strtod("1.5", nullptr), 1.0);  // the locale is in force
    EXPECT_EQ(parse_number("1.5", "x"), 1.5);
    EXPECT_EQ(parse_number("0.00001", "x"), 1e-5);
    std::setlocale(LC_NUMERIC, "C");
  } else {
    std::printf("[note] no de_DE locale and no localedef: the locale check did not run\n");
  }
  ::unsetenv("LOCPATH");
  std::system(("rm -rf " + locdir).c_str());
  EXPECT_EQ(parse_count("12", "n", 1, 100), 12);
  EXPECT_INVALID(parse_count("101", "n", 1, 100), "n", "integer in [1, 100]");
  EXPECT_INVALID(parse_count("2.5", "n", 1, 100), "n", "'2.5'");
}

}  // namespace
}  // namespace fdp
