// fdp compose: the composed guarantee of several specs, certified brackets.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>

#include "compose_common.hpp"
#include "fdp/core/error.hpp"
#include "fdp/budget/classic.hpp"
#include "fdp/ops/clt.hpp"
#include "fdp/ops/compose_queries.hpp"
#include "fdp/ops/gdp_window.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp::cli {
namespace {

// Relative width within tol: epsilon brackets (an epsilon whose lower end
// is inf is certified to have none, whatever its width), delta and beta
// brackets (relative to their upper end; brackets below 1e-300 are as good
// as the double range allows).
bool meets_tolerance(const query_answers& r, double tol) {
  for (const answer& x : r.epsilon) {
    const interval& e = x.value;
    if (!std::isinf(e.lower) &&
        !(std::isfinite(e.upper) && e.upper - e.lower <= tol * std::max(e.upper, 1e-3)))
      return false;
  }
  for (const auto* v : {&r.delta, &r.beta})
    for (const answer& x : *v)
      if (x.value.upper > 1e-300 && x.value.upper - x.value.lower > tol * x.value.upper)
        return false;
  return true;
}

// The CLT beside the certified answer. An approximation, not a bound. One
// rule everywhere (compose, clt, compare, dpsgd): mu = 2 sum kl / sqrt(sum
// var) over the terms' central-limit functionals (DRS Thm 3.5); a
// Poisson-subsampled Gaussian contributes those of its limit G_m, m^2 =
// q^2 (e^{(D/sigma)^2} - 1) (Bu, Dong, Long & Su 2020). The Berry-Esseen
// gamma needs symmetric terms with finite functionals; without them only mu
// is given.
struct clt_answer {
  std::optional<clt_approximation> band;  ///< DRS Thm 3.5 (symmetric terms)
  clt_estimate estimate;                  ///< mu by the one rule above
};

clt_answer clt_of(const std::vector<spec>& specs) {
  clt_answer c;
  try {
    c.band = clt(specs);
  } catch (const std::exception&) {
  }
  c.estimate = clt_estimate_of(specs, 0.5);
  if (c.band && c.band->applicable()) c.estimate.mu = c.band->clt_mu();
  return c;
}

json clt_json(const clt_answer& c, const std::vector<double>& deltas) {
  json jc;
  if (!c.estimate.applicable) {
    jc["applicable"] = false;
    jc["reason"] = c.estimate.reason;
    return jc;
  }
  const bool has_band = c.band && c.band->applicable();
  jc["applicable"] = true;
  jc["mu"] = num(c.estimate.mu);
  jc["gamma"] = has_band ? num(c.band->gamma()) : json(nullptr);
  if (!has_band) jc["reason"] = c.band ? c.band->reason() : std::string("no Berry-Esseen band");
  // (estimates, not brackets: each a number at the value it was asked at)
  json ce = json::array();
  for (double d : deltas)
    ce.push_back(query("delta", d, "epsilon", num(gdp_eps(c.estimate.mu, d))));
  jc["estimates"] = ce;
  jc["is_bound"] = false;
  jc["note"] = has_band ? "approximation (central limit theorem, DRS Thm 3.5), not a bound"
                        : "approximation (the terms' central limits, Bu et al. 2020 for "
                          "subsampled Gaussians), not a bound; no Berry-Esseen band";
  return jc;
}

void print_clt(const clt_answer& c, const std::vector<double>& deltas) {
  if (!c.estimate.applicable) {
    std::cout << "  CLT approximation: not applicable (" << c.estimate.reason << ")\n";
    return;
  }
  const bool has_band = c.band && c.band->applicable();
  std::cout << "  CLT approximation (NOT a bound): mu = " << fmt(c.estimate.mu);
  if (has_band) std::cout << ", gamma = " << fmt(c.band->gamma(), 4);
  for (double d : deltas)
    std::cout << ", epsilon at delta=" << fmt(d) << " ~ " << fmt(gdp_eps(c.estimate.mu, d));
  std::cout << "\n";
  if (!has_band)
    std::cout << "    (the terms' central limits, Bu et al. 2020 for subsampled Gaussians; no "
                 "Berry-Esseen band: "
              << (c.band ? c.band->reason() : std::string("unavailable")) << ")\n";
}

// A Poisson-subsampled term (its whole-curve GDP summary is set by the tail).
bool has_subsampled(const std::vector<spec>& specs) {
  for (const auto& s : specs)
    if (s.kind().name.rfind("subsampled-", 0) == 0) return true;
  return false;
}

// How a numeric composition was computed: its grid and limits (the
// tolerance asked and met are in "assumptions", the time in "timing").
json grid_json(const composition& c) {
  json g;
  g["grid_step"] = c.grid_step();
  g["grid_points"] = c.grid_size();
  g["refinements"] = c.refinements();
  g["grid_limit"] = c.grid_limit_name();
  return g;
}

// The epsilon composition's grid, and under "delta_queries" the grid of the
// composition that answered the deltas at epsilons when they had one of
// their own (compose_for_queries).
json numerics_json(const query_compositions& t, const compose_options& opts) {
  json g = grid_json(t.for_epsilons);
  g["max_memory"] = opts.max_memory;
  if (t.for_deltas && !t.for_deltas->is_exact()) g["delta_queries"] = grid_json(*t.for_deltas);
  return g;
}

void print_numerics(const query_compositions& t, const compose_options& opts, double secs,
                    bool tolerance_met) {
  const composition& c = t.for_epsilons;
  std::cout << "  (certified brackets; grid step " << fmt(c.grid_step(), 4) << ", " << c.grid_size()
            << " points";
  if (t.for_deltas && !t.for_deltas->is_exact())
    std::cout << "; the deltas at epsilons on a grid of their own: step "
              << fmt(t.for_deltas->grid_step(), 4) << ", " << t.for_deltas->grid_size()
              << " points";
  std::cout << ", " << fmt(secs * 1e3, 3) << " ms)\n";
  std::string limit = grid_limit_note(c, opts);
  if (limit.empty() && t.for_deltas) limit = grid_limit_note(*t.for_deltas, opts);
  if (!tolerance_met)
    std::cout << "  note: a bracket above is wider than --tolerance " << fmt(opts.tolerance)
              << (limit.empty() ? " (the refinement stopped at its limits)" : "")
              << "; it is still certified\n";
  if (!limit.empty()) std::cout << "  note: " << limit << "\n";
}

int run_compose(const args& a) {
  const auto specs = parse_specs(a);
  const auto opts = compose_options_from(a);
  const queries q = read_queries(a);
  const auto t0 = std::chrono::steady_clock::now();
  // (tuned for the queries: epsilons at the smallest delta with a finite
  // one, deltas on a composition of their own when they need it)
  const query_compositions tuned = compose_for_queries(specs, opts, q.deltas, q.epsilons);
  const composition& c = tuned.for_epsilons;
  json out = envelope("compose");
  out["method"] = c.method();
  const query_answers answers = answer_queries(q, c, tuned.delta_source());
  add_answers_json(out, answers);
  // The whole-curve summary of a Poisson-subsampled composition is set by
  // the alpha -> 0 tail (sqrt(sum T D^2/sigma^2) for DP-SGD): printed only
  // when asked (--mu); --mu-above A gives mu on tests with both errors >= A.
  const bool tail_set = has_subsampled(specs);
  const std::optional<interval> mu =
      tail_set && !a.flag("mu") ? std::nullopt : gdp_summary_if_wanted(a, q, c);
  if (mu) out["mu"] = bracket(mu->lower, mu->upper);
  std::optional<interval> window;
  const double level = a.number_or("mu-above", 0.0, 0.0, 0.5, true, true);
  if (level > 0) {
    window = gdp_mu_above(c, level);
    out["mu_above"] = {{"level", level}, {"mu", bracket(window->lower, window->upper)}};
  }
  if (a.has("curve-out"))
    write_curve_csv(c, static_cast<int>(a.integer_or("points", 201, 3, 1000000)),
                    a.value("curve-out"));
  // The CLT only when asked for: the functionals of a subsampled law are a
  // quadrature that can cost far more than the composition itself.
  const bool want_clt = a.value_or("method", "auto") == "clt";
  std::optional<clt_answer> ca;
  if (want_clt) {
    ca = clt_of(specs);
    out["clt"] = clt_json(*ca, q.answered_deltas());
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Was the requested relative width met by every answer asked for? (The
  // brackets are certified either way; wider than asked when the grid
  // limit or the FFT noise floor stopped the refinement.)
  const bool tol_met = c.is_exact() || meets_tolerance(answers, opts.tolerance);
  if (!c.is_exact()) {
    out["assumptions"] = tolerance_json(opts.tolerance, tol_met);
    out["numerics"] = numerics_json(tuned, opts);
  }
  const json relations = spec_assumptions_json(specs);
  if (!relations.empty()) out["assumptions"]["specs"] = relations;
  out["timing"] = timing(secs);
  if (a.flag("json")) {
    print_json(out);
    return 0;
  }
  std::cout << "composition of " << specs.size() << " spec(s), method " << c.method() << "\n";
  print_spec_assumptions(specs);
  // (the queried points as given: the shortest decimal that reads back)
  print_answers(answers, [](double x) { return detail::format_value(x); });
  if (mu) print_gdp_summary(*mu);
  if (window)
    std::cout << "  GDP on tests with both errors >= " << fmt(level) << ": mu in ["
              << fmt_down(window->lower) << ", " << fmt_up(window->upper)
              << "]   (certified: f >= G_mu there)\n";
  if (q.none && tail_set && !mu && !window)
    std::cout << "  (GDP summary omitted: for subsampled specs it is set by the alpha -> 0 tail;\n"
                 "   --mu prints it, --mu-above A gives mu on tests with both errors >= A)\n";
  if (want_clt) print_clt(*ca, q.answered_deltas());
  if (!c.is_exact()) print_numerics(tuned, opts, secs, tol_met);
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "compose", "composed guarantee of specs: epsilon, delta, beta, GDP mu (certified brackets)",
    "usage: fdp compose SPEC... [--delta D]... [--eps E]... [--alpha A]... [--mu]\n"
    "                   [--curve-out FILE [--points N]] [--method auto|exact|pld|clt]\n"
    "                   [--tolerance T] [--json]\n\n"
    "Composes (tensor product) the specs. Every numeric answer is a bracket\n"
    "[lower, upper] that contains the true value; closed forms give lower == upper.\n"
    "With no query: epsilon at delta = 1e-5 and the GDP summary mu (not for Poisson-\n"
    "subsampled specs, whose summary is set by the alpha -> 0 tail: --mu still\n"
    "prints it; --mu-above A gives the certified mu on every test whose type I and\n"
    "type II errors are both >= A).\n\n"
    "  --delta D       epsilon at delta D (repeatable)\n"
    "  --eps E         delta at epsilon E (repeatable)\n"
    "  --alpha A       beta = f(A) (repeatable)\n"
    "  --mu            also report the GDP summary (smallest mu with f >= G_mu)\n"
    "  --mu-above A    the smallest mu with f >= G_mu where both errors are >= A\n"
    "  --curve-out F   write alpha,beta_lower,beta_upper to F (--points N, default 201)\n"
    "  --method M      auto (closed form when one exists, else pld), exact, pld;\n"
    "                  clt also prints the CLT approximation beside the certified\n"
    "                  bracket (it is an estimate, not a bound; JSON key \"clt\")\n"
    "  --tolerance T   target relative width of the epsilon bracket (default 0.003)\n"
    "  --max-memory M  memory ceiling of the composition (default 2G; K, M, G, T\n"
    "                  suffixes; 0: none): a coarser grid or Chernoff bounds\n"
    "                  beyond it, still certified, with a note\n"
    "  --json          one JSON object on stdout\n\n"
    "examples:\n"
    "  fdp compose gdp:mu=1 --alpha 0.05 --json\n"
    "  fdp compose laplace:b=10,times=100 --delta 1e-6\n"
    "  fdp compose subsampled-gaussian:sigma=1.1,q=0.004267,times=14063 --delta 1e-5\n",
    query_command_options({{"curve-out", true, false, "CSV output file"},
                           {"mu-above", true, false, "GDP mu on tests with both errors >= A"},
                           {"points", true, false, "curve points"}}),
    run_compose, true});

}  // namespace
}  // namespace fdp::cli
