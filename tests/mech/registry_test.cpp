// The catalogue and spec strings: every entry builds, round-trips, samples
// its example input reproducibly; bad specs and bad inputs throw
// std::invalid_argument naming the parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "fdp/mech/mech.hpp"
#include "fdp/ops/compose.hpp"

namespace fdp::mech {
namespace {

std::vector<std::string> draw_tokens(const mechanism& m, const std::vector<double>& in,
                                     std::size_t n, std::uint64_t seed, std::uint64_t shard) {
  const auto sh = m.shape(in.size());
  rng_stream g(seed, shard);
  std::vector<std::string> t;
  if (sh.kind == output_kind::categorical) {
    std::vector<std::int64_t> o(n);
    m.sample(in, g, n, o.data());
    for (auto x : o) {
      EXPECT_GE(x, 0);
      EXPECT_LT(static_cast<std::uint64_t>(x), sh.categories);
      t.push_back(m.token(x, in.size()));
    }
  } else {
    std::vector<double> o(n * sh.dim);
    m.sample(in, g, n, o.data());
    for (std::size_t s = 0; s < n; ++s) {
      std::string line;
      for (std::size_t i = 0; i < sh.dim; ++i) {
        EXPECT_TRUE(std::isfinite(o[s * sh.dim + i]));
        line += detail::fmt_param(o[s * sh.dim + i]) + ",";
      }
      t.push_back(line);
    }
  }
  return t;
}

TEST(Registry, EveryEntryBuildsRoundTripsAndSamples) {
  std::set<std::string> names;
  bool seen_flawed = false;
  for (const auto& info : catalogue()) {
    SCOPED_TRACE(info.name);
    EXPECT_TRUE(names.insert(info.name).second);
    // correct entries come first
    if (info.flawed) seen_flawed = true;
    EXPECT_FALSE(!info.flawed && seen_flawed);
    const auto m = make_mechanism(info.example_spec);
    EXPECT_EQ(m->name(), info.name);
    EXPECT_EQ(m->flawed(), info.flawed);
    EXPECT_EQ(make_mechanism(m->spec())->spec(), m->spec());
    EXPECT_FALSE(m->description().empty());
    EXPECT_FALSE(m->reference().empty());
    EXPECT_FALSE(m->neighbours().text.empty());
    EXPECT_FALSE(m->claim().describe().empty());
    if (info.flawed) {
      EXPECT_FALSE(m->flaw().empty());
      EXPECT_FALSE(m->exposing_pairs().empty());
    }
    for (const auto& p : m->exposing_pairs()) {
      m->check_input(p.input0);
      m->check_input(p.input1);
      EXPECT_EQ(p.input0.size(), p.input1.size());
    }
    m->check_input(info.example_input);
    // reproducible per (seed, shard); shards differ
    const auto a = draw_tokens(*m, info.example_input, 200, 5, 0);
    const auto b = draw_tokens(*m, info.example_input, 200, 5, 0);
    const auto c = draw_tokens(*m, info.example_input, 200, 5, 1);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
  }
  EXPECT_TRUE(seen_flawed);
}

TEST(Registry, SpecsSetTheParameters) {
  const auto l = make_mechanism("laplace:b=2,sensitivity=3");
  EXPECT_EQ(l->spec(), "laplace:b=2,sensitivity=3");
  EXPECT_DOUBLE_EQ(beta(*l->exact_tradeoff(), 0.5), beta(fdp::laplace(1.5), 0.5));
  const auto g = make_mechanism("gaussian:eps=1,delta=1e-5");
  EXPECT_EQ(g->spec(), "gaussian:eps=1,delta=1e-05,calibration=analytic,sensitivity=1");
  const auto s = make_mechanism("sparse:eps=1,threshold=2,c=3,delta=1e-6");
  EXPECT_EQ(dynamic_cast<const sparse_vector&>(*s).c(), 3u);
  EXPECT_TRUE(make_mechanism("exponential:eps=1,monotone=1")->neighbours().monotone);
  EXPECT_EQ(make_mechanism("randomized-response:eps=1,k=4")->shape(1).categories, 4u);
}

std::string error_of(const std::string& spec) {
  try {
    make_mechanism(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(Registry, BadSpecsNameTheParameter) {
  struct c {
    const char* spec;
    const char* needle;
  };
  const c cases[] = {
      {"nosuch:eps=1", "unknown name 'nosuch'"},
      {"laplace:eps=1,foo=2", "unknown key 'foo' for laplace (allowed: b, eps, sensitivity)"},
      {"laplace:eps=1,eps=2", "key 'eps' repeated"},
      {"laplace", "eps, b"},
      {"laplace:eps=1,b=2", "eps, b"},
      {"laplace:eps=0", "eps="},
      {"laplace:eps=-1", "eps="},
      {"laplace:eps=abc", "eps"},
      {"laplace:eps=inf", "eps"},
      {"laplace:eps=nan", "eps"},
      {"laplace:eps=1,", "trailing"},
      {"laplace:", "nothing after"},
      {"laplace:eps", "KEY=VALUE"},
      {"gaussian:sigma=1,mu=1", "exactly one"},
      {"gaussian:eps=1", "delta"},
      {"gaussian:eps=1,delta=1", "delta="},
      {"gaussian:eps=1,delta=0", "delta="},
      {"gaussian:eps=1,delta=-0.5", "delta="},
      {"gaussian:eps=2,delta=1e-5,calibration=classical", "eps="},
      {"gaussian:eps=1,delta=1e-5,calibration=magic", "calibration"},
      {"gaussian:sigma=1,calibration=analytic", "calibration"},
      {"sparse:eps=1,threshold=0,c=0", "c="},
      {"sparse:eps=1,threshold=0,c=-1", "c="},
      {"sparse:eps=1,threshold=0,c=1.5", "c="},
      {"sparse:eps=1,threshold=0,delta=1", "delta="},
      {"sparse:eps=1,threshold=0,delta=-0.1", "delta="},
      {"sparse:eps=1", "threshold"},
      {"above-threshold:eps=-2,threshold=0", "eps="},
      {"svt-lyu-alg3:eps=0.1,c=0", "c="},
      {"randomized-response:eps=1,k=1", "k"},
      {"exponential:eps=1,monotone=yes", "monotone"},
      {"discrete-laplace:eps=1,sensitivity=1.5", "sensitivity="},
      {"histogram-inverted-scale:eps=0", "eps="},
  };
  for (const auto& x : cases) {
    const std::string e = error_of(x.spec);
    EXPECT_NE(e.find(x.needle), std::string::npos) << x.spec << " -> " << e;
  }
}

// Every catalogue entry states its claim as a spec of the table (what
// `fdp compose` and `fdp audit --claim` read): it parses, composes, and is
// the mechanism's claim exactly (the same trade-off function at every alpha).
TEST(Registry, ClaimSpecsParseAndCompose) {
  std::vector<std::string> specs;
  for (const auto& info : catalogue()) specs.push_back(info.example_spec);
  // claims beyond the examples': f_{eps,delta} with delta > 0, G_mu, other parameters
  for (const char* s : {"sparse:eps=1,threshold=0,c=2,delta=1e-6", "gaussian:sigma=3,sensitivity=2",
                        "gaussian:eps=1,delta=1e-5", "laplace:b=3,sensitivity=2",
                        "randomized-response:eps=0.3,k=5"}) {
    specs.push_back(s);
  }
  for (const auto& spec : specs) {
    const auto m = make_mechanism(spec);
    const std::string text = m->claim_spec();
    ASSERT_FALSE(text.empty()) << spec;
    const composition c = compose({fdp::parse_spec(text)});
    ASSERT_TRUE(c.is_exact()) << spec << ": " << text;
    for (double a : {0.0, 1e-9, 0.01, 0.1, 0.3, 0.5, 0.77, 1.0}) {
      EXPECT_EQ(fdp::beta(*c.exact(), a), fdp::beta(m->claim(), a)) << spec << " at " << a;
    }
  }
  EXPECT_EQ(make_mechanism("gaussian:sigma=2")->claim_spec(), "gdp:mu=0.5");
  EXPECT_EQ(make_mechanism("laplace:eps=1")->claim_spec(), "epsdelta:eps=1");
}

// One grammar for mechanisms and specs: the same words fail the same way.
TEST(Registry, SharesTheSpecGrammar) {
  for (const char* bad :
       {"laplace:", "laplace:eps", "laplace:eps=1,", "laplace:=1", "laplace:eps=1,eps=2"}) {
    std::string spec_error, mech_error;
    try {
      fdp::parse_spec(bad);
    } catch (const std::invalid_argument& e) {
      spec_error = e.what();
    }
    mech_error = error_of(bad);
    EXPECT_FALSE(spec_error.empty()) << bad;
    EXPECT_EQ(spec_error, mech_error) << bad;
  }
}

TEST(Registry, BadInputsAreRejected) {
  auto err = [](const mechanism& m, const std::vector<double>& in) {
    try {
      m.check_input(in);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& info : catalogue()) {
    const auto m = make_mechanism(info.example_spec);
    EXPECT_NE(err(*m, {}).find("answers=[]"), std::string::npos) << info.name;
    auto in = info.example_input;
    in[0] = nan;
    EXPECT_NE(err(*m, in).find("answers[0]"), std::string::npos) << info.name;
    in[0] = inf;
    EXPECT_NE(err(*m, in).find("answers[0]"), std::string::npos) << info.name;
  }
  EXPECT_NE(err(randomized_response(1.0, 3), {3.0}).find("answers[0]"), std::string::npos);
  EXPECT_NE(err(randomized_response(1.0, 3), {0.5}).find("answers[0]"), std::string::npos);
  EXPECT_NE(err(randomized_response(1.0, 3), {0.0, 1.0}).find("answers.size"), std::string::npos);
  EXPECT_NE(err(discrete_laplace_mechanism(1.0), {1.5}).find("answers[0]"), std::string::npos);
  EXPECT_NE(err(sparse_vector(1.0, 0.0), std::vector<double>(63, 0.0)).find("answers.size"),
            std::string::npos);
  // sample() checks too, before touching the buffer
  std::vector<double> out(4);
  rng_stream g(1, 1);
  EXPECT_THROW(laplace_mechanism(1.0).sample({nan}, g, 1, out.data()), std::invalid_argument);
  std::vector<std::int64_t> idx(4);
  EXPECT_THROW(laplace_mechanism(1.0).sample({1.0}, g, 1, idx.data()), std::logic_error);
}

TEST(Registry, ParseAnswers) {
  EXPECT_EQ(parse_answers("1,2.5,-3e2"), (std::vector<double>{1, 2.5, -300}));
  EXPECT_THROW(parse_answers(""), std::invalid_argument);
  EXPECT_THROW(parse_answers("1,,2"), std::invalid_argument);
  EXPECT_THROW(parse_answers("1,2,"), std::invalid_argument);
  EXPECT_THROW(parse_answers("1,nan"), std::invalid_argument);
  EXPECT_THROW(parse_answers("1,inf"), std::invalid_argument);
  EXPECT_THROW(parse_answers("x"), std::invalid_argument);
}

}  // namespace
}  // namespace fdp::mech
