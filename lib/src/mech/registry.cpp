#include "fdp/mech/registry.hpp"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "fdp/core/error.hpp"
#include "fdp/core/spec_grammar.hpp"
#include "fdp/mech/mech.hpp"

namespace fdp::mech {

namespace {

std::string what(const mechanism_spec& s, const std::string& key) {
  return s.name + "(" + key + ")";
}

[[noreturn]] void fail(const mechanism_spec& s, const std::string& key, const std::string& value,
                       const std::string& allowed) {
  throw std::invalid_argument(s.name + "(" + key + "=" + value + "): " + allowed);
}

void require_one_of(const mechanism_spec& s, const std::vector<std::string>& keys) {
  int n = 0;
  std::string list;
  for (const auto& k : keys) {
    n += s.has(k) ? 1 : 0;
    list += (list.empty() ? "" : ", ") + k;
  }
  if (n != 1) {
    throw std::invalid_argument(s.name + "(" + list + "): give exactly one of them (spec '" +
                                s.text + "')");
  }
}

std::unique_ptr<mechanism> make_laplace(const mechanism_spec& s) {
  require_one_of(s, {"eps", "b"});
  const double sens = s.number_or("sensitivity", 1.0);
  if (s.has("b")) {
    return std::make_unique<laplace_mechanism>(laplace_mechanism::with_scale(s.number("b"), sens));
  }
  return std::make_unique<laplace_mechanism>(s.number("eps"), sens);
}

std::unique_ptr<mechanism> make_gaussian(const mechanism_spec& s) {
  const double sens = s.number_or("sensitivity", 1.0);
  const bool ed = s.has("eps") || s.has("delta");
  const int forms = (s.has("sigma") ? 1 : 0) + (s.has("mu") ? 1 : 0) + (ed ? 1 : 0);
  if (forms != 1) {
    throw std::invalid_argument(
        "gaussian(sigma, mu, eps/delta): give exactly one of sigma=S, mu=M, or eps=E,delta=D "
        "(spec '" +
        s.text + "')");
  }
  if (s.has("calibration") && !ed) {
    fail(s, "calibration", "'" + s.values.at("calibration") + "'", "only with eps=E,delta=D");
  }
  if (s.has("sigma")) {
    return std::make_unique<gaussian_mechanism>(
        gaussian_mechanism::with_sigma(s.number("sigma"), sens));
  }
  if (s.has("mu")) {
    return std::make_unique<gaussian_mechanism>(gaussian_mechanism::with_mu(s.number("mu"), sens));
  }
  if (!s.has("eps")) fail(s, "eps", "<missing>", "required with delta");
  if (!s.has("delta")) fail(s, "delta", "<missing>", "required with eps; must be in (0, 1)");
  const std::string cal = s.has("calibration") ? s.values.at("calibration") : "analytic";
  if (cal == "analytic") {
    return std::make_unique<gaussian_mechanism>(
        gaussian_mechanism::analytic(s.number("eps"), s.number("delta"), sens));
  }
  if (cal == "classical") {
    return std::make_unique<gaussian_mechanism>(
        gaussian_mechanism::classical(s.number("eps"), s.number("delta"), sens));
  }
  fail(s, "calibration", "'" + cal + "'", "must be 'analytic' or 'classical'");
}

std::unique_ptr<mechanism> make_sparse(const mechanism_spec& s) {
  // c and delta are read as numbers first so that c = 0 or c = -1 report "c >= 1".
  const double c = s.number_or("c", 1.0);
  if (!(c >= 1 && c <= 62 && c == std::floor(c))) {
    fail(s, "c", detail::fmt_param(c), "must be an integer in [1, 62]");
  }
  return std::make_unique<sparse_vector>(s.number("eps"), s.number("threshold"),
                                         static_cast<std::uint64_t>(c), s.number_or("delta", 0.0),
                                         s.number_or("sensitivity", 1.0));
}

std::uint64_t lyu_c(const mechanism_spec& s) {
  const double c = s.number_or("c", 1.0);
  if (!(c >= 1 && c <= 62 && c == std::floor(c))) {
    fail(s, "c", detail::fmt_param(c), "must be an integer in [1, 62]");
  }
  return static_cast<std::uint64_t>(c);
}

const param_doc kEps{"eps", "", "privacy parameter, > 0"};
const param_doc kSens{"sensitivity", "1",
                      "sensitivity of the answers (see the neighbour relation)"};
const param_doc kMonotone{"monotone", "0",
                          "1: neighbours move all answers the same way (halves the noise)"};
const param_doc kThresholdReq{"threshold", "", "the threshold T"};
const param_doc kThreshold1{"threshold", "1", "the threshold T (DP-Sniper's default)"};
const param_doc kC1{"c", "1", "number of above-threshold answers before halting, >= 1"};

}  // namespace

// ------------------------------------------------------------- spec parsing

double mechanism_spec::number(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) {
    throw std::invalid_argument(name + "(" + key + "=<missing>): required (spec '" + text + "')");
  }
  return parse_number(it->second, what(*this, key));
}

double mechanism_spec::number_or(const std::string& key, double dflt) const {
  return has(key) ? number(key) : dflt;
}

std::uint64_t mechanism_spec::count_or(const std::string& key, std::uint64_t dflt, std::uint64_t lo,
                                       std::uint64_t hi) const {
  if (!has(key)) return dflt;
  return static_cast<std::uint64_t>(parse_count(values.at(key), what(*this, key),
                                                static_cast<std::int64_t>(lo),
                                                static_cast<std::int64_t>(hi)));
}

bool mechanism_spec::flag_or(const std::string& key, bool dflt) const {
  if (!has(key)) return dflt;
  const std::string& v = values.at(key);
  if (v == "1" || v == "true") return true;
  if (v == "0" || v == "false") return false;
  fail(*this, key, "'" + v + "'", "must be 0, 1, true or false");
}

const std::vector<mechanism_info>& catalogue() {
  static const std::vector<mechanism_info> cat = [] {
    std::vector<mechanism_info> c;
    // ---- correct mechanisms
    c.push_back({"laplace",
                 "Laplace mechanism f(x) + Lap(sensitivity/eps)^k (Dwork & Roth Def. 3.3, Thm 3.6)",
                 {{"eps", "", "privacy parameter, > 0 (or give b)"},
                  {"b", "", "noise scale, > 0 (instead of eps; eps = sensitivity/b)"},
                  {"sensitivity", "1", "l1 sensitivity"}},
                 "f_{eps,0}",
                 "T(Lap(0,b), Lap(sensitivity,b)) = laplace{sensitivity/b}",
                 "||a - a'||_1 <= sensitivity",
                 "k numbers (k = number of answers)",
                 false,
                 "laplace:eps=1",
                 {1.0},
                 make_laplace});
    c.push_back(
        {"discrete-laplace",
         "discrete Laplace mechanism, exact integer sampling: the production choice "
         "(Canonne, Kamath & Steinke 2020)",
         {kEps, {"sensitivity", "1", "integer l1 sensitivity in [1, 10000]"}},
         "f_{eps,0}",
         "polygon of T(Z, Z + sensitivity), Z discrete Laplace (f_{eps,0} at sensitivity 1)",
         "integer answers, ||a - a'||_1 <= sensitivity",
         "k integers",
         false,
         "discrete-laplace:eps=1",
         {3.0},
         [](const mechanism_spec& s) {
           return std::make_unique<discrete_laplace_mechanism>(s.number("eps"),
                                                               s.number_or("sensitivity", 1.0));
         }});
    c.push_back({"gaussian",
                 "Gaussian mechanism f(x) + N(0, sigma^2)^k, calibrated by sigma, mu-GDP, or "
                 "(eps, delta) (analytic or classical)",
                 {{"sigma", "", "noise standard deviation (one of sigma, mu, eps+delta)"},
                  {"mu", "", "GDP parameter: sigma = sensitivity/mu"},
                  {"eps", "", "with delta: (eps, delta)-DP calibration"},
                  {"delta", "", "in (0, 1), with eps"},
                  {"calibration", "analytic", "analytic (exact, any eps) or classical (eps < 1)"},
                  {"sensitivity", "1", "l2 sensitivity"}},
                 "G_{sensitivity/sigma}, G_mu, or f_{eps,delta}",
                 "G_{sensitivity/sigma}",
                 "||a - a'||_2 <= sensitivity",
                 "k numbers",
                 false,
                 "gaussian:mu=1",
                 {1.0},
                 make_gaussian});
    c.push_back({"randomized-response",
                 "k-ary randomized response: truth w.p. e^eps/(e^eps + k - 1)",
                 {kEps, {"k", "2", "number of categories, >= 2"}},
                 "f_{eps,0}",
                 "f_{eps,0} for k = 2; polygon (0,1),(q,1-p),(1-p,q),(1,0) for k > 2",
                 "the one answer (a category in [0, k)) may change to any other",
                 "a category index (token r<i>)",
                 false,
                 "randomized-response:eps=1",
                 {0.0},
                 [](const mechanism_spec& s) {
                   return std::make_unique<randomized_response>(
                       s.number("eps"), s.count_or("k", 2, 2, std::uint64_t{1} << 31));
                 }});
    c.push_back({"exponential",
                 "exponential mechanism: r w.p. ~ exp(eps u_r / (2 Du)) (monotone: eps u_r / Du)",
                 {kEps, {"sensitivity", "1", "Delta u"}, kMonotone},
                 "f_{eps,0}",
                 "",
                 "|u_r - u'_r| <= Du for every r (monotone: all in the same direction)",
                 "a candidate index (token r<i>)",
                 false,
                 "exponential:eps=1",
                 {0, 1, 2, 3},
                 [](const mechanism_spec& s) {
                   return std::make_unique<exponential_mechanism>(s.number("eps"),
                                                                  s.number_or("sensitivity", 1.0),
                                                                  s.flag_or("monotone", false));
                 }});
    c.push_back({"report-noisy-max",
                 "Report Noisy Max: argmax u_r + Lap(2 Du/eps) (monotone: Lap(Du/eps), Prop. 3.9)",
                 {kEps, kSens, kMonotone},
                 "f_{eps,0}",
                 "",
                 "|u_r - u'_r| <= sensitivity for every r (monotone: same direction)",
                 "a candidate index (token r<i>)",
                 false,
                 "report-noisy-max:eps=1",
                 {1, 1, 1, 1, 1},
                 [](const mechanism_spec& s) {
                   return std::make_unique<report_noisy_max>(s.number("eps"),
                                                             s.number_or("sensitivity", 1.0),
                                                             s.flag_or("monotone", false));
                 }});
    c.push_back({"noisy-argmax-exp",
                 "Report One-Sided Noisy Arg-Max: argmax u_r + Exp(scale 2 Du/eps) "
                 "(= permute-and-flip; not the exponential mechanism, despite D&R Thm 3.13)",
                 {kEps, kSens, kMonotone},
                 "f_{eps,0}",
                 "",
                 "|u_r - u'_r| <= sensitivity for every r (monotone: same direction)",
                 "a candidate index (token r<i>)",
                 false,
                 "noisy-argmax-exp:eps=1",
                 {1, 1, 1, 1, 1},
                 [](const mechanism_spec& s) {
                   return std::make_unique<noisy_argmax_exponential>(
                       s.number("eps"), s.number_or("sensitivity", 1.0),
                       s.flag_or("monotone", false));
                 }});
    c.push_back({"above-threshold",
                 "AboveThreshold: first query with f_i + Lap(4D/eps) >= T + Lap(2D/eps) (Alg. 1)",
                 {kEps, kThresholdReq, kSens},
                 "f_{eps,0}",
                 "",
                 "each query answer moves by at most sensitivity (l_inf)",
                 "the answer stream as a token of T/F/- (k <= 62 queries)",
                 false,
                 "above-threshold:eps=1,threshold=0.5",
                 {0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
                 [](const mechanism_spec& s) {
                   return std::make_unique<sparse_vector>(sparse_vector::above_threshold(
                       s.number("eps"), s.number("threshold"), s.number_or("sensitivity", 1.0)));
                 }});
    c.push_back({"sparse",
                 "Sparse: AboveThreshold restarted c times with eps' of Thm 3.25 (Alg. 2)",
                 {kEps, kThresholdReq, kC1, {"delta", "0", "in [0, 1)"}, kSens},
                 "f_{eps,delta}",
                 "",
                 "each query answer moves by at most sensitivity (l_inf)",
                 "the answer stream as a token of T/F/- (k <= 62 queries)",
                 false,
                 "sparse:eps=1,threshold=0.5,c=2",
                 {0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
                 make_sparse});
    // ---- known-flawed variants
    c.push_back({"svt-lyu-alg3",
                 "FLAWED SVT releasing the noisy query value (Lyu, Su & Li 2017 Alg. 3)",
                 {kEps, kThreshold1, kC1, kSens},
                 "f_{eps,0} (claimed); truly no finite eps",
                 "",
                 "each query answer moves by at most sensitivity (l_inf)",
                 "2k numbers: codes (1 above, 0 below, -1 halted), then noisy values of aboves",
                 true,
                 "svt-lyu-alg3:eps=0.1",
                 {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                 [](const mechanism_spec& s) {
                   return std::make_unique<flawed::svt_outputs_value>(
                       s.number("eps"), s.number_or("threshold", 1.0), lyu_c(s),
                       s.number_or("sensitivity", 1.0));
                 }});
    c.push_back({"svt-lyu-alg4",
                 "FLAWED SVT with eps1 = eps/4 and query noise not scaled by c (Lyu et al. Alg. 4)",
                 {kEps, kThreshold1, kC1, kSens},
                 "f_{eps,0} (claimed); truly ((1 + 6c)/4) eps-DP",
                 "",
                 "each query answer moves by at most sensitivity (l_inf)",
                 "the answer stream as a token of T/F/-",
                 true,
                 "svt-lyu-alg4:eps=0.1",
                 {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                 [](const mechanism_spec& s) {
                   return std::make_unique<flawed::svt_lee_clifton>(
                       s.number("eps"), s.number_or("threshold", 1.0), lyu_c(s),
                       s.number_or("sensitivity", 1.0));
                 }});
    c.push_back({"svt-lyu-alg5",
                 "FLAWED SVT without query noise (Lyu et al. Alg. 5)",
                 {kEps, kThreshold1, kSens},
                 "f_{eps,0} (claimed); truly no finite eps (k >= 2)",
                 "",
                 "each query answer moves by at most sensitivity (l_inf)",
                 "the answer stream as a token of T/F",
                 true,
                 "svt-lyu-alg5:eps=0.1",
                 {2, 2, 2, 2, 2, 0, 0, 0, 0, 0},
                 [](const mechanism_spec& s) {
                   return std::make_unique<flawed::svt_no_query_noise>(
                       s.number("eps"), s.number_or("threshold", 1.0),
                       s.number_or("sensitivity", 1.0));
                 }});
    c.push_back({"svt-lyu-alg6",
                 "FLAWED SVT without cutoff (Lyu et al. Alg. 6)",
                 {kEps, kThreshold1, kSens},
                 "f_{eps,0} (claimed); truly a loss growing with k (<= k eps/2)",
                 "",
                 "each query answer moves by at most sensitivity (l_inf)",
                 "the answer stream as a token of T/F",
                 true,
                 "svt-lyu-alg6:eps=0.1",
                 {1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
                 [](const mechanism_spec& s) {
                   return std::make_unique<flawed::svt_no_cutoff>(s.number("eps"),
                                                                  s.number_or("threshold", 1.0),
                                                                  s.number_or("sensitivity", 1.0));
                 }});
    c.push_back(
        {"noisy-max-value-laplace",
         "FLAWED noisy max releasing the max VALUE of u_r + Lap(2 Du/eps) (Ding et al. Alg. 7)",
         {kEps, kSens},
         "f_{eps,0} (claimed); truly (m eps/2)-DP with m answers",
         "",
         "|u_r - u'_r| <= sensitivity for every r",
         "one number",
         true,
         "noisy-max-value-laplace:eps=0.1",
         {0, 0, 0, 0, 0},
         [](const mechanism_spec& s) {
           return std::make_unique<flawed::noisy_max_value_laplace>(
               s.number("eps"), s.number_or("sensitivity", 1.0));
         }});
    c.push_back(
        {"noisy-max-value-exp",
         "FLAWED noisy max releasing the max VALUE of u_r + Exp(scale 2 Du/eps) (Ding et al. "
         "Alg. 8)",
         {kEps, kSens},
         "f_{eps,0} (claimed); truly no finite eps",
         "",
         "|u_r - u'_r| <= sensitivity for every r",
         "one number",
         true,
         "noisy-max-value-exp:eps=0.1",
         {1, 1, 1, 1, 1},
         [](const mechanism_spec& s) {
           return std::make_unique<flawed::noisy_max_value_exp>(s.number("eps"),
                                                                s.number_or("sensitivity", 1.0));
         }});
    c.push_back({"histogram-inverted-scale",
                 "FLAWED noisy histogram with Lap(eps) instead of Lap(1/eps) (Ding et al. Alg. 10)",
                 {kEps},
                 "f_{eps,0} (claimed); truly laplace{1/eps}, (1/eps)-DP",
                 "laplace{1/eps} (the true one)",
                 "histogram: one cell changes by at most 1",
                 "k numbers",
                 true,
                 "histogram-inverted-scale:eps=0.1",
                 {1, 1, 1, 1, 1},
                 [](const mechanism_spec& s) {
                   return std::make_unique<flawed::histogram_inverted_scale>(s.number("eps"));
                 }});
    c.push_back({"laplace-fp-textbook",
                 "FLAWED textbook floating-point Laplace a - b sgn(u) ln(1 - 2|u|) (Mironov 2012)",
                 {kEps, kSens},
                 "f_{eps,0} (claimed); truly no finite eps (floating-point leak)",
                 "",
                 "||a - a'||_1 <= sensitivity",
                 "k numbers",
                 true,
                 "laplace-fp-textbook:eps=0.1",
                 {1.0},
                 [](const mechanism_spec& s) {
                   return std::make_unique<flawed::laplace_fp_textbook>(
                       s.number("eps"), s.number_or("sensitivity", 1.0));
                 }});
    return c;
  }();
  return cat;
}

// The grammar and its messages are the spec table's (fdp/core/spec_grammar.hpp).
mechanism_spec parse_mechanism_spec(const std::string& text) {
  static const auto keys = [] {
    std::map<std::string, std::set<std::string>> m;
    for (const auto& info : catalogue()) {
      auto& set = m[info.name];
      for (const auto& p : info.params) set.insert(p.key);
    }
    return m;
  }();
  static const auto names = [] {
    std::vector<std::string> v;
    for (const auto& info : catalogue()) v.push_back(info.name);
    return v;
  }();
  spec_word w = parse_spec_word(text, names, [&](const std::string& name) {
    const auto it = keys.find(name);
    return it == keys.end() ? nullptr : &it->second;
  });
  mechanism_spec s;
  s.text = std::move(w.text);
  s.name = std::move(w.name);
  s.values = std::move(w.values);
  return s;
}

std::unique_ptr<mechanism> make_mechanism(const std::string& text) {
  const mechanism_spec s = parse_mechanism_spec(text);
  for (const auto& m : catalogue()) {
    if (m.name == s.name) return m.make(s);
  }
  throw std::logic_error("make_mechanism: catalogue changed during lookup");
}

std::vector<double> parse_answers(const std::string& text, const std::string& what) {
  if (text.empty()) throw std::invalid_argument(what + ": empty vector, expected e.g. '1,2,3'");
  std::vector<double> v;
  std::size_t start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    v.push_back(parse_number(item, what + "[" + std::to_string(v.size()) + "]"));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return v;
}

}  // namespace fdp::mech
