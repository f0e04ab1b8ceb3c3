// Tests for the table of spec kinds (fdp/ops/spec_kind.hpp): every kind is
// consistent and usable, aliases mean the same mechanism, and every kind
// refuses a bad key and out-of-range values with a message naming the key
// and its range. The cases come from the table, so a new kind gets them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "fdp/core/error.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {
namespace {

std::string error_of(const std::string& text) {
  try {
    (void)make_term(parse_spec(text));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

// A file of this process (its pid in the name: ctest runs the tests of
// this binary in parallel processes), removed when the process exits.
struct scratch_file {
  std::string path;
  scratch_file(const std::string& stem, const char* text)
      : path(::testing::TempDir() + stem + std::to_string(::getpid()) + ".csv") {
    std::ofstream(path) << text;
  }
  scratch_file(const scratch_file&) = delete;
  scratch_file& operator=(const scratch_file&) = delete;
  ~scratch_file() { std::remove(path.c_str()); }
};

// A curve file for the file keys of the examples.
const std::string& curve_file() {
  static const scratch_file file("fdp_spec_table_test_", "0,1\n0.2,0.3\n1,0\n");
  return file.path;
}

// An RDP curve file (order,rdp rows) for the rdp kind's file key.
const std::string& rdp_file() {
  static const scratch_file file("fdp_spec_table_rdp_", "order,rdp\n2,0.5\n4,1\n8,2\n");
  return file.path;
}

// The example with its file keys pointing at curve_file() (rdp_file() for
// the rdp kind, whose files hold an RDP curve).
std::string runnable_example(const spec_kind& k) {
  std::string text = k.example;
  for (const auto& key : k.keys) {
    if (key.kind != spec_key::type::text || key.name != "file") continue;  // (others: lists)
    const auto at = text.find(key.name + "=");
    const auto end = text.find(',', at);
    text = text.substr(0, at) + key.name + "=" + (k.name == "rdp" ? rdp_file() : curve_file()) +
           (end == std::string::npos ? "" : text.substr(end));
  }
  return text;
}

// The example's items with `key` set to `value` (its alternatives dropped).
std::string with_value(const spec_kind& k, const std::string& key, const std::string& value) {
  const spec s = parse_spec(runnable_example(k));
  const spec_key* def = k.key(key);
  std::string text = k.name + ":" + key + "=" + value;
  for (const auto& [name, v] : s.params) {
    const spec_key* other = k.key(name);
    if (name == key || (!def->group.empty() && other->group == def->group)) continue;
    text += "," + name + "=" + v;
  }
  return text;
}

// Values outside a key's range (below and above, where there is an end; a
// word not among a choice key's).
std::vector<std::string> out_of_range(const spec_key& key) {
  if (key.kind == spec_key::type::choice) return {"nosuchword"};
  std::vector<std::string> v;
  const value_range& r = key.range;
  auto fmt = [](double x) { return detail::format_value(x); };
  v.push_back(fmt(r.lo_open ? r.lo : r.lo - 1));
  if (r.hi < 1e300) v.push_back(fmt(r.hi_open ? r.hi : r.hi + 1));
  return v;
}

TEST(SpecTable, EveryKindIsDocumentedAndComposes) {
  ASSERT_GE(spec_kinds().size(), 8u);
  for (const auto& k : spec_kinds()) {
    EXPECT_FALSE(k.doc.empty()) << k.name;
    EXPECT_EQ(k.usage().rfind(k.name, 0), 0u) << k.name;
    EXPECT_EQ(find_spec_kind(k.name), &k);
    for (const auto& key : k.keys) {
      EXPECT_FALSE(key.doc.empty()) << k.name << " " << key.name;
      EXPECT_FALSE(key.metavar.empty()) << k.name << " " << key.name;
    }
    const std::string ex = runnable_example(k);
    const spec s = parse_spec(ex);
    EXPECT_EQ(&s.kind(), &k);
    const compose_term t = make_term(s);
    EXPECT_TRUE(t.law) << ex;
    EXPECT_EQ(t.times, s.times);
    EXPECT_EQ(single_tradeoff(s).has_value(), k.closed != nullptr) << ex;
    const interval e = compose({s}).epsilon(1e-5);
    EXPECT_LE(e.lower, e.upper) << ex;
  }
  EXPECT_EQ(find_spec_kind("nosuch"), nullptr);
  EXPECT_NE(spec_kind_names().find("laplace"), std::string::npos);
}

TEST(SpecTable, EveryKindRefusesABadKeyAndOutOfRangeValues) {
  for (const auto& k : spec_kinds()) {
    const std::string bad_key = runnable_example(k) + (k.keys.empty() ? ":" : ",") + "nosuchkey=1";
    const std::string e = error_of(bad_key);
    EXPECT_NE(e.find("unknown key 'nosuchkey' for " + k.name + " (allowed: "), std::string::npos)
        << e;
    for (const auto& key : k.keys) {
      if (key.kind == spec_key::type::text) continue;
      for (const auto& v : out_of_range(key)) {
        const std::string text = with_value(k, key.name, v);
        const std::string m = error_of(text);
        EXPECT_NE(m.find("spec '" + text + "': " + key.name), std::string::npos)
            << text << " -> " << m;
        const bool names_range = key.kind == spec_key::type::integer
                                     ? m.find("must be an integer in [") != std::string::npos
                                     : m.find("must be") != std::string::npos;
        EXPECT_TRUE(names_range) << text << " -> " << m;
      }
    }
    // times, the key every kind takes
    std::string t0 = k.name + ":times=0";
    for (const auto& [name, v] : parse_spec(runnable_example(k)).params) t0 += "," + name + "=" + v;
    EXPECT_NE(error_of(t0).find("integer in [1, 1000000000000]"), std::string::npos) << t0;
  }
}

TEST(SpecTable, MissingRequiredKeysAreNamed) {
  for (const auto& k : spec_kinds()) {
    for (const auto& key : k.keys) {
      if (!key.required() && key.group.empty()) continue;
      // drop the key (and its alternatives): the message names it
      const spec s = parse_spec(runnable_example(k));
      std::string text = k.name, sep = ":";
      for (const auto& [name, v] : s.params) {
        const spec_key* other = k.key(name);
        if (name == key.name || (!key.group.empty() && other->group == key.group)) continue;
        text += sep + name + "=" + v;
        sep = ",";
      }
      const std::string e = error_of(text);
      EXPECT_NE(e.find("missing required key"), std::string::npos) << text << " -> " << e;
      EXPECT_NE(e.find("'" + key.name + "'"), std::string::npos) << text << " -> " << e;
    }
  }
}

// laplace:eps= and laplace:b= are one mechanism (eps = sensitivity / b);
// gaussian:mu= and gaussian:sigma= likewise (mu = sensitivity / sigma).
TEST(SpecTable, AliasesMeanTheSameMechanism) {
  auto mu_of = [](const std::string& t) {
    const auto f = single_tradeoff(parse_spec(t)).value();
    if (auto l = std::get_if<laplace>(&f.get())) return l->mu;
    return std::get<gaussian>(f.get()).mu;
  };
  EXPECT_EQ(mu_of("laplace:eps=0.5"), mu_of("laplace:b=2"));
  EXPECT_EQ(mu_of("laplace:eps=1.5"), mu_of("laplace:b=2,sensitivity=3"));
  EXPECT_EQ(mu_of("laplace:eps=1.5,sensitivity=3"),
            1.5);  // (eps is the mechanism's, whatever its sensitivity)
  EXPECT_EQ(mu_of("gaussian:mu=0.25"), mu_of("gaussian:sigma=4"));
  EXPECT_EQ(mu_of("gaussian:mu=0.5"), mu_of("gaussian:sigma=4,sensitivity=2"));
  const interval a = compose({parse_spec("laplace:eps=0.1,times=50")}).epsilon(1e-6);
  const interval b = compose({parse_spec("laplace:b=10,times=50")}).epsilon(1e-6);
  EXPECT_EQ(a.lower, b.lower);
  EXPECT_EQ(a.upper, b.upper);
  // both or neither: refused, naming the keys
  EXPECT_NE(error_of("laplace:b=1,eps=1").find("keys 'b' and 'eps'"), std::string::npos);
  EXPECT_NE(error_of("laplace:sensitivity=2").find("missing required key 'b' or 'eps' for laplace"),
            std::string::npos);
  EXPECT_NE(error_of("gaussian:sigma=1,mu=1").find("keys 'sigma' and 'mu'"), std::string::npos);
  EXPECT_NE(error_of("gaussian").find("missing required key 'sigma' or 'mu' for gaussian"),
            std::string::npos);
  EXPECT_NE(error_of("laplace:eps=-1").find("eps = -1 must be >= 0"), std::string::npos);
}

TEST(SpecTable, CalibratableParametersAreKeys) {
  for (const auto& k : spec_kinds()) {
    for (const auto& c : k.calibration) {
      EXPECT_TRUE(c.key == "times" || k.key(c.key) != nullptr) << k.name << " " << c.key;
      EXPECT_LT(c.lo, c.hi);
    }
  }
}

}  // namespace
}  // namespace fdp
