// Views (partitions), counts and their exact merge; plan and stats files.
#include "fdp/audit/plan.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "fdp/audit/stats_io.hpp"
#include "fdp/core/bounded_reader.hpp"

namespace fdp::audit {
namespace {

TEST(View, CutsCellSemantics) {
  view v;
  v.type = view::kind::cuts;
  v.cuts = {-1.0, 0.0, 2.5};
  ASSERT_EQ(v.cells(), 4u);
  // cell(x) = #{c < x}: x <= cuts[i] iff cell(x) <= i.
  const double xs[] = {-5, -1, -0.5, 0, 1, 2.5, 3};
  const std::size_t want[] = {0, 0, 1, 1, 2, 2, 3};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(v.cell_of(&xs[i]), want[i]) << xs[i];
}

TEST(View, CategoriesHaveAnOtherCell) {
  view v;
  v.type = view::kind::categories;
  v.keys = {3, 7, 1000000000000LL};
  v.index_keys();
  EXPECT_EQ(v.cells(), 4u);
  EXPECT_EQ(v.cell_of_key(7), 1u);
  EXPECT_EQ(v.cell_of_key(1000000000000LL), 2u);
  EXPECT_EQ(v.cell_of_key(5), 3u);
  EXPECT_EQ(v.cell_of_key(-1), 3u);
  view w;  // small keys: dense table
  w.type = view::kind::categories;
  w.keys = {0, 2, 4};
  w.index_keys();
  EXPECT_EQ(w.cell_of_key(2), 1u);
  EXPECT_EQ(w.cell_of_key(3), 3u);
  EXPECT_EQ(w.cell_of_key(1 << 22), 3u);
}

TEST(View, BitKeySeparatesGrids) {
  // Same binade, different lowest set bit.
  EXPECT_NE(bit_key(0.75), bit_key(0.5 + 0x1p-40));
  EXPECT_EQ(bit_key(0.75), bit_key(0.625 + 0.125));               // same value
  EXPECT_EQ(bit_key(0.5 + 0x1p-40), bit_key(0.5 + 3 * 0x1p-40));  // both lowest bit 2^-40
  EXPECT_NE(bit_key(1.5), bit_key(-1.5));
  EXPECT_NE(bit_key(0.0), bit_key(-0.0));
  EXPECT_EQ(describe_bit_key(bit_key(1.5)), "+2^0/tz51");
}

TEST(View, TreeAndPattern) {
  view t;
  t.type = view::kind::tree;
  // root: x[1] <= 0 ? leaf 0 : (x[0] <= 2 ? leaf 1 : leaf 2)
  t.nodes = {{1, 0.0, 1, 2, -1},
             {-1, 0, -1, -1, 0},
             {0, 2.0, 3, 4, -1},
             {-1, 0, -1, -1, 1},
             {-1, 0, -1, -1, 2}};
  t.leaves = 3;
  const double a[] = {5, -1}, b[] = {1, 1}, c[] = {3, 1};
  EXPECT_EQ(t.cell_of(a), 0u);
  EXPECT_EQ(t.cell_of(b), 1u);
  EXPECT_EQ(t.cell_of(c), 2u);

  view p;
  p.type = view::kind::pattern;
  p.disc = {0};
  p.disc_values = {{-1, 0, 1}};
  p.atom_coord = {1};
  p.atom_value = {0.0};
  p.proj = {1, 2};
  double s;
  const double x1[] = {1, 0, 5}, x2[] = {1, 2, 5}, x3[] = {0.5, 0, 5};
  const auto k1 = p.pattern_key(x1, s);
  EXPECT_EQ(s, 5.0);
  const auto k2 = p.pattern_key(x2, s);
  EXPECT_EQ(s, 7.0);
  EXPECT_NE(k1, k2);
  p.keys = {k1, k2};
  p.key_cuts = {{4.0}, {}};
  p.index_keys();
  p.index_pattern();
  EXPECT_EQ(p.cells(), 4u);  // 2 + 1 + other
  EXPECT_EQ(p.cell_of(x1), 1u);
  EXPECT_EQ(p.cell_of(x2), 2u);
  EXPECT_EQ(p.cell_of(x3), 3u);  // unknown discrete value: other
}

plan small_plan() {
  plan p;
  p.type = output_type::real;
  p.dim = 2;
  p.confidence = 0.9;
  p.selection[0] = 10;
  p.selection[1] = 12;
  view v;
  v.type = view::kind::cuts;
  v.coord = 1;
  v.cuts = {-0.5, 0.1, std::nextafter(1.0, 2.0)};
  v.label = "coordinate 1";
  p.views.push_back(v);
  view t;
  t.type = view::kind::tree;
  t.nodes = {{0, 0.3, 1, 2, -1}, {-1, 0, -1, -1, 0}, {-1, 0, -1, -1, 1}};
  t.leaves = 2;
  t.label = "tree leaf";
  p.views.push_back(t);
  test a;
  a.view = 0;
  a.in = {1, 1, 0, 0};
  a.gamma = 0.025;
  a.role = "epsilon";
  a.description = "coordinate 1 <= 0.1";
  a.complement = "coordinate 1 > 0.1";
  p.tests.push_back(a);
  test b;
  b.view = 1;
  b.in = {0, 1};
  b.ordering = 1;
  b.gamma = 0.0125;
  b.band = true;
  b.role = "curve";
  p.tests.push_back(b);
  return p;
}

TEST(Counts, AccumulateAndMergeExactly) {
  const plan p = small_plan();
  ASSERT_NEAR(p.total_error(), 0.1, 1e-15);
  const double x[] = {0.0, -1.0, 1.0, 0.05, 0.2, 0.1, 0.5, 3.0};  // 4 outputs of dim 2
  eval_counts a, b, all;
  a.init(p);
  b.init(p);
  all.init(p);
  accumulate(p, 0, x, 2, a);
  accumulate(p, 0, x + 4, 2, b);
  accumulate(p, 0, x, 4, all);
  accumulate(p, 1, x + 2, 3, b);
  accumulate(p, 1, x + 2, 3, all);
  a.merge(b);
  EXPECT_EQ(a.n[0], 4u);
  EXPECT_EQ(a.n[1], 3u);
  for (int s = 0; s < 2; ++s) EXPECT_EQ(a.cells[s], all.cells[s]);
  // coordinate 1 of side 0: -1, 0.05, 0.1, 3 -> cells 0, 1, 1, 3
  EXPECT_EQ(all.cells[0][0], (std::vector<std::uint64_t>{1, 2, 0, 1}));
  EXPECT_EQ(all.count(0, p.tests[0]), 3u);
  eval_counts other;
  plan q = p;
  q.views.pop_back();
  q.tests.pop_back();
  other.init(q);
  EXPECT_THROW(a.merge(other), std::invalid_argument);
}

TEST(Counts, CategoricalWeights) {
  plan p;
  p.type = output_type::categorical;
  view v;
  v.type = view::kind::categories;
  v.keys = {1, 2};
  v.index_keys();
  p.views.push_back(v);
  eval_counts c;
  c.init(p);
  const std::int64_t k[] = {1, 2, 9};
  const std::uint64_t w[] = {5, 0, 7};
  accumulate(p, 1, k, w, 3, c);
  EXPECT_EQ(c.n[1], 12u);
  EXPECT_EQ(c.cells[1][0], (std::vector<std::uint64_t>{5, 0, 7}));
}

TEST(StatsIo, PlanRoundTripsExactly) {
  const plan p = small_plan();
  std::stringstream ss;
  write_plan(ss, p);
  const plan q = read_plan(ss, "mem");
  EXPECT_EQ(plan_fingerprint(p), plan_fingerprint(q));
  EXPECT_EQ(q.views[0].cuts, p.views[0].cuts);  // hex floats: bit-exact
  EXPECT_EQ(q.tests[1].gamma, p.tests[1].gamma);
  EXPECT_EQ(q.tests[0].complement, p.tests[0].complement);
  const double x[] = {0.35, 0.1};
  EXPECT_EQ(q.views[1].cell_of(x), p.views[1].cell_of(x));
}

TEST(StatsIo, StatsFilesMerge) {
  const plan p = small_plan();
  eval_counts a;
  a.init(p);
  const double x[] = {0.0, -1.0, 1.0, 0.05};
  accumulate(p, 0, x, 2, a);
  accumulate(p, 1, x, 1, a);
  const std::string path = ::testing::TempDir() + "fdp_audit_stats_test.txt";
  write_stats(path, p, a);
  plan q;
  eval_counts b;
  read_stats(path, q, b);
  EXPECT_EQ(b.n[0], 2u);
  EXPECT_EQ(b.cells[0], a.cells[0]);
  EXPECT_EQ(b.cells[1], a.cells[1]);
  EXPECT_EQ(plan_fingerprint(q), plan_fingerprint(p));
  EXPECT_TRUE(b.streams.empty());  // (sample-file counts: no stream line)
  // mechanism shards record their random streams, and a stream seen twice
  // does not merge (the same outputs would be counted twice)
  a.streams = {{7, 1u << 20}};
  write_stats(path, p, a);
  eval_counts c;
  read_stats(path, q, c);
  EXPECT_EQ(c.streams, a.streams);
  eval_counts d = c;
  EXPECT_THROW(d.merge(c), std::invalid_argument);
  eval_counts e = c;
  e.streams = {{7, 2u << 20}};
  d.merge(e);
  EXPECT_EQ(d.n[0], 4u);
  EXPECT_EQ(d.streams.size(), 2u);
  EXPECT_THROW(d.merge(e), std::invalid_argument);
  std::remove(path.c_str());
}

// A garbled streams line is an error naming the file and line, never a
// silently dropped stream (which would let a shard merge twice).
TEST(StatsIo, MalformedStreamsLinesNameTheLine) {
  const plan p = small_plan();
  eval_counts a;
  a.init(p);
  a.streams = {{3, 1u << 20}};
  const std::string path = ::testing::TempDir() + "fdp_audit_streams_test.txt";
  write_stats(path, p, a);
  std::string text;
  {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  }
  const std::size_t at = text.find("streams 3 1048576\n");
  ASSERT_NE(at, std::string::npos);
  for (const char* bad :
       {"streams 3\n", "streams x 1\n", "streams 3 -1\n", "streams\n", "streams 3 1 2\n"}) {
    std::string t = text;
    t.replace(at, std::string("streams 3 1048576\n").size(), bad);
    {
      std::ofstream f(path);
      f << t;
    }
    plan q;
    eval_counts c;
    try {
      read_stats(path, q, c);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(path + ":"), std::string::npos) << e.what();
    }
  }
  std::remove(path.c_str());
}

TEST(StatsIo, MalformedFilesNameTheLine) {
  std::stringstream bad("fdp-audit-plan 1\ntype real\ndim x\n");
  try {
    read_plan(bad, "plan.txt");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("plan.txt:3"), std::string::npos) << e.what();
  }
  std::stringstream wrong("hello\n");
  EXPECT_THROW(read_plan(wrong, "x"), std::invalid_argument);
  // Error levels exceeding 1 - confidence are rejected.
  plan p = small_plan();
  p.tests[0].gamma = 0.2;
  std::stringstream ss;
  write_plan(ss, p);
  EXPECT_THROW(read_plan(ss, "x"), std::invalid_argument);
}

// The first line is read with the default line limit (any other file,
// /dev/zero included, fails there); later lines may be longer than it.
TEST(StatsIo, LineLimits) {
  auto error_of = [](auto f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  plan q;
  eval_counts c;
  EXPECT_EQ(error_of([&] { read_stats("/dev/zero", q, c); }),
            "stats file '/dev/zero': line 1 is longer than 65536 bytes");
  EXPECT_EQ(error_of([&] { read_plan("/dev/zero"); }),
            "plan file '/dev/zero': line 1 is longer than 65536 bytes");
  std::stringstream wide("fdp-audit-plan 1" + std::string(kMaxLineBytes, ' ') + "\n");
  EXPECT_EQ(error_of([&] { read_plan(wide, "mem"); }), "mem: line 1 is longer than 65536 bytes");

  plan p = small_plan();
  p.views[0].label = std::string(200000, 'x');  // a 200 kB line
  const std::string path = ::testing::TempDir() + "fdp_audit_wide_stats_test.txt";
  eval_counts a;
  a.init(p);
  write_stats(path, p, a);
  read_stats(path, q, c);
  EXPECT_EQ(plan_fingerprint(q), plan_fingerprint(p));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace fdp::audit
