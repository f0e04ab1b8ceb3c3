#include "fdp/budget/dpsgd.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "fdp/budget/subsample.hpp"
#include "fdp/core/error.hpp"
#include "fdp/core/families.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/gdp_window.hpp"
#include "fdp/ops/group.hpp"
#include "fdp/ops/loss_law.hpp"
#include "fdp/ops/random_allocation.hpp"

namespace fdp {
namespace {

// The shortest decimal that reads back exactly: spec texts and messages
// show q=0.01024, not q=0.010240000000000001.
std::string fmt_exact(double x) { return detail::format_value(x); }

compose_term curve_term(const curve& c, std::int64_t times, const std::string& name) {
  compose_term t;
  t.closed = tradeoff(c);
  t.law = make_law(*t.closed);
  t.times = times;
  t.text = name;
  return t;
}

}  // namespace

sampling_scheme parse_sampling(const std::string& s) {
  if (s == "poisson") return sampling_scheme::poisson;
  if (s == "without-replacement" || s == "fixed-size") return sampling_scheme::without_replacement;
  if (s == "shuffle") return sampling_scheme::shuffle;
  if (s == "balls-in-bins") return sampling_scheme::balls_in_bins;
  if (s == "truncated-poisson") return sampling_scheme::truncated_poisson;
  if (s == "random-allocation") return sampling_scheme::random_allocation;
  throw std::invalid_argument("--sampling '" + s +
                              "' must be one of poisson, truncated-poisson, without-replacement, "
                              "shuffle, balls-in-bins, random-allocation");
}

std::string to_string(sampling_scheme s) {
  switch (s) {
    case sampling_scheme::poisson:
      return "poisson";
    case sampling_scheme::without_replacement:
      return "without-replacement";
    case sampling_scheme::shuffle:
      return "shuffle";
    case sampling_scheme::balls_in_bins:
      return "balls-in-bins";
    case sampling_scheme::truncated_poisson:
      return "truncated-poisson";
    case sampling_scheme::random_allocation:
      return "random-allocation";
  }
  return "?";
}

epoch_steps_rule parse_epoch_steps_rule(const std::string& s) {
  if (s == "ceil") return epoch_steps_rule::ceil;
  if (s == "floor") return epoch_steps_rule::floor;
  if (s == "total") return epoch_steps_rule::total;
  throw std::invalid_argument("--steps-per-epoch '" + s +
                              "' must be ceil, floor, total or a whole number of steps");
}

std::string to_string(epoch_steps_rule r) {
  switch (r) {
    case epoch_steps_rule::ceil:
      return "ceil";
    case epoch_steps_rule::floor:
      return "floor";
    case epoch_steps_rule::total:
      return "total";
  }
  return "?";
}

namespace {

void require_epochs(double epochs) {
  detail::require(std::isfinite(epochs) && epochs > 0 && epochs <= 1e9, "dpsgd_steps", "epochs",
                  epochs, "must be in (0, 1e9]");
}

// ceil(t) for a count computed in long double, forgiving the rounding of
// the product (4688.0000000001 -> 4688), and within the 1e12 step limit.
std::int64_t whole_steps(long double t, double epochs) {
  const long double c = std::ceil(t - 1e-9L * t);
  if (c > 1e12L)
    detail::throw_domain("dpsgd_steps", "epochs", epochs, "gives more than 1e12 steps");
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(c));
}

}  // namespace

std::int64_t dpsgd_steps(double epochs, std::int64_t n, std::int64_t b, epoch_steps_rule rule) {
  require_epochs(epochs);
  detail::require(n >= 1, "dpsgd_steps", "dataset_size", static_cast<long long>(n), "must be >= 1");
  detail::require(b >= 1 && b <= n, "dpsgd_steps", "batch_size", static_cast<long long>(b),
                  "must be in [1, dataset_size]");
  if (rule == epoch_steps_rule::total) {
    return whole_steps(static_cast<long double>(epochs) * static_cast<long double>(n) /
                           static_cast<long double>(b),
                       epochs);
  }
  const std::int64_t per_epoch = rule == epoch_steps_rule::ceil ? (n + b - 1) / b : n / b;
  return dpsgd_steps_exact(epochs, per_epoch);
}

std::int64_t dpsgd_steps_exact(double epochs, std::int64_t per_epoch) {
  require_epochs(epochs);
  detail::require(per_epoch >= 1, "dpsgd_steps", "steps_per_epoch",
                  static_cast<long long>(per_epoch), "must be >= 1");
  return whole_steps(static_cast<long double>(epochs) * static_cast<long double>(per_epoch),
                     epochs);
}

double clt_mu_poisson(double q, double mu0, std::int64_t steps) {
  return q * std::sqrt(static_cast<double>(steps) * std::expm1(mu0 * mu0));
}

double clt_mu_uniform(double p, double mu0, std::int64_t steps) {
  const double v = std::exp(mu0 * mu0) * norm_cdf(1.5 * mu0) + 3.0 * norm_cdf(-0.5 * mu0) - 2.0;
  return std::sqrt(2.0) * p * std::sqrt(static_cast<double>(steps) * std::max(0.0, v));
}

namespace {

// The steps an epoch of batches at rate q can have: floor(1/q) when the
// loader keeps only full batches, ceil(1/q) with a last partial one (1/q
// read with 1e-12 relative slack, so 1/0.01 is 100 both ways). A loader's
// known count between the two (`known`, 0 when not given) replaces both.
struct epoch_length {
  std::int64_t full;          // floor(1/q), at least 1
  std::int64_t with_partial;  // ceil(1/q)
};

epoch_length epoch_length_of(double q, std::int64_t known = 0) {
  epoch_length e;
  e.full = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(1.0 / q * (1 + 1e-12))));
  e.with_partial = static_cast<std::int64_t>(std::ceil(1.0 / q * (1 - 1e-12)));
  if (known >= e.full && known <= e.with_partial) e.full = e.with_partial = known;
  return e;
}

}  // namespace

std::int64_t allocation_uses(const dpsgd_config& c) {
  const double qt = c.q * static_cast<double>(c.steps);
  double k = static_cast<double>(c.uses);
  if (c.uses == 0) {
    k = std::round(qt);
    if (std::fabs(qt - k) > 1e-9 * std::max(1.0, qt))
      throw std::invalid_argument(
          "dpsgd: uses: random-allocation needs each record's number of steps; q x steps = " +
          fmt_exact(qt) + " is not an integer (give it: --uses K)");
  }
  detail::require(k >= 1 && k <= static_cast<double>(c.steps), "dpsgd", "uses", k,
                  "must be an integer in [1, steps]");
  // The batches hold k/T of the records on average: a q that says otherwise
  // would be echoed as an assumption the accounting never made. (A loader
  // of k epochs of ceil(1/q) or floor(1/q) steps has q T = k q ceil(1/q) or
  // k q floor(1/q): that far from k is the loader's, not a contradiction;
  // and half a step for rounding.)
  const epoch_length e = epoch_length_of(c.q);
  const double loader = std::max(c.q * static_cast<double>(e.with_partial) - 1.0,
                                 1.0 - c.q * static_cast<double>(e.full));
  if (std::fabs(qt - k) > 0.5 + k * std::max(0.0, loader) + 1e-9 * qt)
    throw std::invalid_argument(
        "dpsgd: uses = " + fmt_exact(k) + " disagrees with q x steps = " + fmt_exact(qt) +
        " (random allocation's batches hold uses/steps of the records on average: give q = " +
        fmt_exact(k / static_cast<double>(c.steps)) + ", or leave uses out to take q x steps)");
  return static_cast<std::int64_t>(k);
}

namespace {

// Balls-in-bins and shuffling put each record in one step of each epoch,
// so an epoch has about 1/q steps: a loader's count elsewhere contradicts
// q (and would be accounted as a run it is not).
void check_steps_per_epoch(const dpsgd_config& c) {
  detail::require(c.steps_per_epoch >= 0, "dpsgd", "steps_per_epoch",
                  static_cast<long long>(c.steps_per_epoch), "must be >= 0 (0: not known)");
  const bool binned =
      c.sampling == sampling_scheme::balls_in_bins || c.sampling == sampling_scheme::shuffle;
  if (!binned || c.steps_per_epoch == 0) return;
  for (const dpsgd_phase& p : dpsgd_phases(c)) {
    const epoch_length e = epoch_length_of(p.q);
    if (c.steps_per_epoch < e.full || c.steps_per_epoch > e.with_partial)
      throw std::invalid_argument(
          "dpsgd: steps_per_epoch = " + std::to_string(c.steps_per_epoch) +
          " must be floor(1/q) = " + std::to_string(e.full) +
          " or ceil(1/q) = " + std::to_string(e.with_partial) + " for " + to_string(c.sampling) +
          " batches (each record is in one step of each epoch, so an epoch has about 1/q "
          "steps; give the loader's q = 1/K or its batch size)");
  }
}

void validate(const dpsgd_config& c) {
  for (const dpsgd_phase& p : dpsgd_phases(c)) {
    detail::require(p.q > 0 && p.q <= 1, "dpsgd", "q", p.q, "must be in (0, 1]");
    detail::require(std::isfinite(p.sigma) && p.sigma > 0, "dpsgd", "sigma", p.sigma,
                    "must be finite and > 0");
    detail::require(p.steps >= 1 && p.steps <= 1000000000000LL, "dpsgd", "steps",
                    static_cast<long long>(p.steps), "must be in [1, 1e12]");
  }
  detail::require(c.delta > 0 && c.delta < 1, "dpsgd", "delta", c.delta, "must be in (0, 1)");
  for (double d : c.more_deltas)
    detail::require(d > 0 && d < 1, "dpsgd", "delta", d, "must be in (0, 1)");
  detail::require(c.sensitivity == 0 || (std::isfinite(c.sensitivity) && c.sensitivity > 0),
                  "dpsgd", "sensitivity", c.sensitivity, "must be finite and > 0");
  detail::require(c.mu_above == 0 || (c.mu_above > 0 && c.mu_above < 0.5), "dpsgd", "mu_above",
                  c.mu_above, "must be 0 (off) or in (0, 0.5)");
  const bool truncated = c.sampling == sampling_scheme::truncated_poisson;
  if (truncated) {
    detail::require(c.max_batch_size >= 1, "dpsgd", "max_batch_size",
                    static_cast<long long>(c.max_batch_size),
                    "must be >= 1 with truncated-poisson sampling");
    detail::require(c.dataset_size >= 1, "dpsgd", "dataset_size",
                    static_cast<long long>(c.dataset_size),
                    "must be >= 1 with truncated-poisson sampling");
  } else if (c.max_batch_size != 0) {
    throw std::invalid_argument("dpsgd: max_batch_size applies to truncated-poisson sampling only");
  }
  check_steps_per_epoch(c);
  if (c.sampling != sampling_scheme::random_allocation) {
    if (c.uses != 0)
      throw std::invalid_argument("dpsgd: uses applies to random-allocation sampling only");
    return;
  }
  if (!c.later_phases.empty())
    throw std::invalid_argument(
        "dpsgd: random-allocation accounts for one phase (the whole run is one round of "
        "allocation); run it per phase with --steps and --uses");
  allocation_uses(c);
}

// The keys that make a phase's Poisson spec another sampler's
// (subsampled-gaussian's sampling=truncated-poisson | without-replacement).
std::string sampling_keys(const dpsgd_config& c) {
  if (c.sampling == sampling_scheme::without_replacement) return ",sampling=without-replacement";
  if (c.sampling != sampling_scheme::truncated_poisson) return "";
  return ",sampling=truncated-poisson,max-batch=" + std::to_string(c.max_batch_size) +
         ",dataset-size=" + std::to_string(c.dataset_size);
}

// Fixed-size batches through the subsampled-gaussian spec (the kind's file
// has the derivation).
std::string fixed_size_route(const dpsgd_config& c) {
  if (c.neighbours == neighbour_relation::add_remove)
    return "fixed-size sampling without replacement (fraction q of the larger dataset), "
           "add-remove neighbours: PLD of the pair (N(0,s^2), (1-q)N(0,s^2) + q N(2D,s^2)) "
           "and its reverse (the record swapped for one in the batch; met when every other "
           "gradient points against the record's, so the bracket contains the true "
           "epsilon), composed ";
  return "fixed-size sampling without replacement (fraction q), " + to_string(c.neighbours) +
         " neighbours: PLD of the mirrored pair with bound 2D (the record swapped for one in "
         "the batch; Lebeda et al. 2025 Prop. 13): an upper bound, composed ";
}

std::string spec_route(const dpsgd_config& c) {
  if (c.sampling == sampling_scheme::without_replacement) return fixed_size_route(c);
  if (c.sampling == sampling_scheme::truncated_poisson)
    return "truncated Poisson sampling (batches above " + std::to_string(c.max_batch_size) +
           " of " + std::to_string(c.dataset_size) + " records cut at random), " +
           to_string(c.neighbours) +
           " neighbours: PLD of the revealed mixture of the uncut Poisson pair and the cut "
           "batch's pair (the record swapped for one in the batch: twice its shift, at the "
           "cut rate), composed ";
  if (c.neighbours == neighbour_relation::replace_one)
    return "Poisson sampling, replace-one neighbours: PLD of the pair "
           "((1-q)N(0,s^2) + q N(-D/2,s^2), (1-q)N(0,s^2) + q N(D/2,s^2)), composed ";
  return "Poisson sampling, " + to_string(c.neighbours) +
         " neighbours: PLD of the pair (N(0,s^2), (1-q)N(0,s^2) + q N(D,s^2)) and its reverse, "
         "composed ";
}

compose_options options_of(const dpsgd_config& c) {
  compose_options o;
  o.tolerance = c.tolerance;
  o.delta_hint = c.delta;
  for (double d : c.more_deltas) o.delta_hint = std::min(o.delta_hint, d);
  return o;
}

std::string phases_text(const std::vector<dpsgd_phase>& ps) {
  std::string t;
  for (const auto& p : ps) t += (t.empty() ? "" : " + ") + std::to_string(p.steps);
  return ps.size() > 1 ? t + " steps in " + std::to_string(ps.size()) + " phases" : t + " times";
}

// The CLT formula of the spec route's pair, in words.
std::string spec_route_clt_formula(const dpsgd_config& c) {
  if (c.sampling == sampling_scheme::without_replacement)
    return c.neighbours == neighbour_relation::add_remove
               ? "mu = q sqrt(T (e^{(2D/sigma)^2} - 1)) (Bu, Dong, Long & Su 2020's limit for "
                 "the pair with shift 2D)"
               : "mu = q sqrt(2 T (e^{mu0^2} - e^{-mu0^2})), mu0 = 2D/sigma (the mirrored pair "
                 "with bound 2D, to first order in q)";
  return c.neighbours == neighbour_relation::replace_one
             ? "mu = q sqrt(2 T (e^{mu0^2} - e^{-mu0^2})), mu0 = D/(2 sigma) (the loss to "
               "first order in q, as Bu, Dong, Long & Su 2020 for add/remove)"
             : "mu = q sqrt(T (e^{(D/sigma)^2} - 1))  (Bu, Dong, Long & Su 2020)";
}

// The larger of two epsilons, bracketed: [max of the lowers, max of the uppers].
interval the_worse(const interval& a, const interval& b) {
  return {std::max(a.lower, b.lower), std::max(a.upper, b.upper)};
}

// The run's specs, one per phase; `extra_record`: truncated Poisson cut
// from one record more (dataset_size + 1).
std::vector<spec> run_specs(const dpsgd_config& c, const std::vector<dpsgd_phase>& ps,
                            double sensitivity, bool extra_record) {
  dpsgd_config cc = c;
  if (extra_record) cc.dataset_size += 1;
  std::vector<spec> specs;
  for (const auto& p : ps)
    specs.push_back(parse_spec(dpsgd_phase_spec(p, sensitivity, c.neighbours) + sampling_keys(cc)));
  return specs;
}

// Truncated Poisson under add-remove: the spec's dataset-size is the larger
// dataset of a neighbouring pair, and the bound is not monotone in it; a
// dataset of N records has neighbours of N - 1 and N + 1, so both N and
// N + 1 are accounted and the worse is reported.
bool needs_larger_neighbour(const dpsgd_config& c) {
  return c.sampling == sampling_scheme::truncated_poisson &&
         c.neighbours == neighbour_relation::add_remove;
}

// The routes through subsampled-gaussian specs (Poisson, truncated Poisson,
// fixed-size batches other than by DRS's C_p): one spec per phase. The CLT
// estimate is each spec's own (its kind's clt hook: T Var per phase).
void account_by_specs(const dpsgd_config& c, const std::vector<dpsgd_phase>& ps, dpsgd_report& r) {
  const std::vector<spec> specs = run_specs(c, ps, r.sensitivity, false);
  std::vector<composition> comps{compose(specs, options_of(c))};
  if (needs_larger_neighbour(c))
    comps.push_back(compose(run_specs(c, ps, r.sensitivity, true), options_of(c)));
  auto worst = [&](auto query) {
    interval e = query(comps.front());
    for (const auto& comp : comps) e = the_worse(e, query(comp));
    return e;
  };
  r.epsilon = worst([&](const composition& k) { return k.epsilon(c.delta); });
  for (double d : c.more_deltas)
    r.more_epsilons.push_back(worst([&](const composition& k) { return k.epsilon(d); }));
  if (c.gdp_summary) {
    r.mu = worst([](const composition& k) { return k.mu(); });
    r.has_mu = true;
  }
  if (c.mu_above > 0)
    r.mu_window = worst([&](const composition& k) { return gdp_mu_above(k, c.mu_above); });
  std::string texts;
  double clt2 = 0.0;
  bool has_clt = true;
  for (const spec& s : specs) {
    texts += (texts.empty() ? "" : "; ") + s.text;
    const clt_moments m = s.kind().clt(s);
    has_clt = has_clt && m.not_applicable.empty();
    clt2 += static_cast<double>(s.times) * m.var;
  }
  r.route = spec_route(c) + phases_text(ps) + " (" + texts +
            (comps.size() > 1 ? "; and the same with dataset-size + 1, the worse reported" : "") +
            ")";
  r.clt_mu = has_clt ? std::sqrt(clt2) : std::numeric_limits<double>::quiet_NaN();
  r.clt_formula =
      has_clt ? spec_route_clt_formula(c) +
                    std::string(ps.size() > 1 ? ", phases combined as sqrt(sum mu_i^2)" : "")
              : "none for " + to_string(c.sampling) + " sampling";
}

// Without replacement + replace-one: the upper end is that of C_p(G_{D/sigma})^{(x)T}
// per phase (DRS Thm 4.2 + Thm 3.2, its lower polygon composed), the lower
// end that of an input that meets the add/remove pair with shift D.
void account_fixed_size(const dpsgd_config& c, const std::vector<dpsgd_phase>& ps,
                        dpsgd_report& r) {
  std::vector<compose_term> lower_terms;
  double cap2 = 0.0, clt2 = 0.0;
  for (const auto& p : ps) {
    const double mu0 = r.sensitivity / p.sigma;
    const curve_bracket cp = subsample(tradeoff(gaussian(mu0)), p.q, 2000);
    lower_terms.push_back(curve_term(cp.lower, p.steps, "C_p(G) lower polygon"));
    cap2 += static_cast<double>(p.steps) * mu0 * mu0;
    const double m = clt_mu_uniform(p.q, mu0, p.steps);
    clt2 += m * m;
  }
  const compose_options o = options_of(c);
  const composition lo = compose_terms(lower_terms, o);
  // The lower end: on the input whose other records all equal the
  // replacement (gradients -u, the record +u, its replacement -u), every
  // batch without the record sums to the same vector, and with it (chance
  // q) moves by D: the add/remove pair with shift D (subsampled-gaussian's
  // sampling=without-replacement with record bound D/2). That input's
  // epsilon is a certified lower bound on the run's, so the bracket is on
  // the run's true epsilon (DRS's C_p^T above, this input below).
  dpsgd_config as_add_remove = c;
  as_add_remove.neighbours = neighbour_relation::add_remove;
  const composition worst_input =
      compose(run_specs(as_add_remove, ps, 0.5 * r.sensitivity, false), o);
  auto bracket_at = [&](double d) {
    const interval el = lo.epsilon(d);
    return interval{std::min(worst_input.epsilon(d).lower, el.upper), el.upper};
  };
  r.epsilon = bracket_at(c.delta);
  for (double d : c.more_deltas) r.more_epsilons.push_back(bracket_at(d));
  if (c.gdp_summary) {
    const interval ml = lo.mu(), mu_worst = worst_input.mu();
    // C_p(G_{mu0}) >= G_{mu0} (DRS Thm 4.2), so the composition is >=
    // G_{sqrt(sum T mu0^2)}: a certified upper end where the polygons give
    // none (q = 1, 4 steps, sigma 1 read [3.9988, inf] for what is exactly G_4)
    const double hi = std::min(ml.upper, std::sqrt(cap2));
    r.mu = {std::min(mu_worst.lower, hi), hi};
    r.has_mu = true;
  }
  if (c.mu_above > 0) {
    const interval wl = gdp_mu_above(lo, c.mu_above), wu = gdp_mu_above(worst_input, c.mu_above);
    r.mu_window = {std::min(wu.lower, wl.upper), wl.upper};
  }
  r.route =
      "fixed-size sampling without replacement (fraction p), replace-one neighbours: "
      "C_p(G_{D/sigma}) per step (DRS Thm 4.2) composed " +
      phases_text(ps) +
      " above; below, the input whose other records equal the replacement (the add/remove "
      "pair with shift D at rate p): a bracket on the run's epsilon";
  r.clt_mu = std::sqrt(clt2);
  r.clt_formula =
      "mu = sqrt(2) p sqrt(T (e^{mu0^2} Phi(1.5 mu0) + 3 Phi(-0.5 mu0) - 2)), mu0 = D/sigma "
      "(Bu, Dong, Long & Su 2020)";
}

// The deltas asked, the first one first.
std::vector<double> asked_deltas(const dpsgd_config& c) {
  std::vector<double> deltas{c.delta};
  deltas.insert(deltas.end(), c.more_deltas.begin(), c.more_deltas.end());
  return deltas;
}

// The whole epochs of phase i (of `lower_t` steps each) the lower side may
// count. The first phase starts an epoch. A later one starts wherever the
// loader is: the epoch running then, already partly counted or not at all,
// ends at the next multiple of t when every phase so far has the same known
// epoch length t, and otherwise may run on up to ceil(1/q) - 1 steps into
// the phase (q the smallest of the phases so far): those steps are left out.
// (Counting them as a whole epoch of the new phase would count one epoch twice.)
std::int64_t lower_side_epochs(const std::vector<dpsgd_phase>& ps, std::size_t i,
                               std::int64_t known_t, std::int64_t lower_t) {
  if (i == 0) return ps[0].steps / lower_t;
  std::int64_t start = 0, longest = 0;
  bool aligned = true;
  for (std::size_t j = 0; j <= i; ++j) {
    const epoch_length e = epoch_length_of(ps[j].q, known_t);
    longest = std::max(longest, e.with_partial);
    aligned = aligned && e.full == e.with_partial && e.full == lower_t;
    if (j < i) start += ps[j].steps;
  }
  const std::int64_t skip = aligned ? (lower_t - start % lower_t) % lower_t : longest - 1;
  return std::max<std::int64_t>(0, ps[i].steps - skip) / lower_t;
}

// An upper bound that credits no amplification to one-step-per-epoch
// batches: in each epoch the record is in at most one step, where the sum
// moves by at most D, so given the assignment (revealed) the epoch is at
// least as private as G_{D/sigma}, and hiding it only mixes pairs of the
// same bound (the hockey-stick divergence is jointly convex). An epoch of a
// loader has at least floor(1/q) steps, so T steps touch at most
// ceil(T / floor(1/q)) epochs; phases after the first may start mid-epoch
// (one more each). It needs the record's slot to be the only difference:
// true for balls-in-bins (each record assigned on its own) under every
// relation and for shuffling under zero-out and replace-one (the record
// replaced in place), not for shuffling under add-remove, where removing a
// record moves every later record's batch. NaN when it does not apply.
double no_amplification_mu(const dpsgd_config& c, const std::vector<dpsgd_phase>& ps, double d) {
  if (c.sampling == sampling_scheme::shuffle && c.neighbours == neighbour_relation::add_remove)
    return std::numeric_limits<double>::quiet_NaN();
  double mu2 = 0.0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const auto fewest = static_cast<double>(epoch_length_of(ps[i].q).full);
    const double epochs =
        std::ceil(static_cast<double>(ps[i].steps) / fewest) + (i > 0 ? 1.0 : 0.0);
    mu2 += epochs * (d / ps[i].sigma) * (d / ps[i].sigma);
  }
  return std::sqrt(mu2);
}

// What Poisson accounting of the same q, sigma and steps says (another
// sampler: printed beside shuffled and balls-in-bins runs for contrast).
std::vector<interval> poisson_contrast(const dpsgd_config& c) {
  dpsgd_config poisson = c;
  poisson.sampling = sampling_scheme::poisson;
  // (random allocation: the rate its batches have on average, k/T)
  if (c.sampling == sampling_scheme::random_allocation)
    poisson.q = static_cast<double>(allocation_uses(c)) / static_cast<double>(c.steps);
  poisson.uses = 0;
  const dpsgd_report pr = account_dpsgd(poisson);
  std::vector<interval> v{pr.epsilon};
  v.insert(v.end(), pr.more_epsilons.begin(), pr.more_epsilons.end());
  return v;
}

// A lower law of one epoch on the input whose record's step is uniform over
// the epoch's `full` full batches with probability rho (balls-in-bins when
// rho = 1): the balls-in-bins pair's lattice garbling, else (a lattice too
// large) the max over the epoch's b steps, one test of it.
compose_term epoch_lower_term(double sigma, std::int64_t full, double b, double rho) {
  const law_bracket bins = balls_in_bins_laws(sigma, full, false, true, rho);
  compose_term t;
  t.law = bins.lower ? bins.lower : max_shift_law(sigma, b, rho);
  t.text = (bins.lower ? "the balls-in-bins pair of an epoch's " +
                             fmt_exact(static_cast<double>(full)) + " full"
                       : "max over an epoch of " + fmt_exact(b)) +
           " steps";
  return t;
}

// Replace-one, one phase: the tests of antipodal_allocation_epsilon_lower
// on the run's whole epochs (the lower side's epoch length, as
// balls_in_bins_terms': more steps per epoch amplify more); zeros for
// several phases or no whole epoch.
std::vector<double> antipodal_epochs_lower(const dpsgd_config& c,
                                           const std::vector<dpsgd_phase>& ps, double shift,
                                           const std::vector<double>& deltas) {
  std::vector<double> none(deltas.size(), 0.0);
  if (ps.size() != 1) return none;
  const dpsgd_phase& p = ps[0];
  const std::int64_t t_lo = epoch_length_of(p.q, c.steps_per_epoch).with_partial;
  const std::int64_t epochs = p.steps / t_lo;
  if (epochs == 0) return none;
  return antipodal_allocation_epsilon_lower(p.sigma / shift, epochs * t_lo, epochs, deltas);
}

// Whether every record is in exactly one step of each epoch of ceil(1/q)
// steps (one phase): balls-in-bins always; shuffling when every batch is
// full (1/q whole) or the loader keeps the last partial batch (its steps per
// epoch ceil(N/B), as given). (A loader that drops it may skip a record.)
bool once_per_epoch(const dpsgd_config& c, const std::vector<dpsgd_phase>& ps) {
  if (ps.size() != 1) return false;
  const epoch_length e = epoch_length_of(ps[0].q);
  return c.sampling == sampling_scheme::balls_in_bins || e.with_partial == e.full ||
         c.steps_per_epoch == e.with_partial;
}

// The lower side of one-step-per-epoch batches (shuffled, and balls-in-bins
// ones whose lattice is too large), on the input where one record's
// gradient has norm `shift` and all others 0: in each whole epoch of b =
// ceil(1/q) steps (lower_side_epochs) the record's step is uniform over the
// epoch's full batches, in one of them with probability rho = full q; in
// the first phase's last m steps (a partial epoch, m <= full), uniform over
// them with probability m q. `text` gets what was counted.
std::vector<compose_term> one_step_per_epoch_lower_terms(const std::vector<dpsgd_phase>& ps,
                                                         double shift, std::string& text) {
  std::vector<compose_term> terms;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const dpsgd_phase& p = ps[i];
    const epoch_length e = epoch_length_of(p.q);
    const std::int64_t epochs = lower_side_epochs(ps, i, 0, e.with_partial);
    const std::int64_t m = i == 0 ? p.steps - epochs * e.with_partial : 0;
    text += (text.empty() ? "" : " + ") + std::to_string(epochs) + " x " +
            std::to_string(e.with_partial) + " steps" +
            (m > 0 ? " + " + std::to_string(m) + " steps of a partial epoch" : "");
    if (epochs > 0) {
      const double rho = std::min(1.0, static_cast<double>(e.full) * p.q);
      compose_term t =
          epoch_lower_term(p.sigma / shift, e.full, static_cast<double>(e.with_partial), rho);
      t.times = epochs;
      terms.push_back(std::move(t));
    }
    if (m > 0) {
      const double rho = std::min(1.0, static_cast<double>(m) * p.q);
      terms.push_back(epoch_lower_term(p.sigma / shift, m, static_cast<double>(m), rho));
    }
  }
  return terms;
}

// Shuffled batches (and balls-in-bins ones whose lattice is too large): a
// certified LOWER bound (dpsgd.hpp), one law per whole epoch of each phase;
// the upper bound without amplification
// where it applies; and the Poisson accounting of the same run beside them,
// for contrast.
void account_one_step_per_epoch(const dpsgd_config& c, const std::vector<dpsgd_phase>& ps,
                                dpsgd_report& r) {
  // the record's shift, in units of the noise's C: its whole bound
  const double shift =
      c.neighbours == neighbour_relation::replace_one ? 0.5 * r.sensitivity : r.sensitivity;
  std::string epochs_text;
  const std::vector<compose_term> terms = one_step_per_epoch_lower_terms(ps, shift, epochs_text);
  const double mu_up = no_amplification_mu(c, ps, r.sensitivity);
  const std::optional<composition> upper =
      std::isnan(mu_up) ? std::nullopt
                        : std::optional<composition>(
                              compose({parse_spec("gdp:mu=" + fmt_exact(mu_up))}, options_of(c)));
  std::optional<composition> comp;
  if (!terms.empty()) comp = compose_terms(terms, options_of(c));
  const std::vector<double> deltas = asked_deltas(c);
  const bool antipodal = c.neighbours == neighbour_relation::replace_one && once_per_epoch(c, ps);
  const std::vector<double> tests = antipodal ? antipodal_epochs_lower(c, ps, shift, deltas)
                                              : std::vector<double>(deltas.size(), 0.0);
  auto lower_at = [&](std::size_t i) {
    const double d = deltas[i];
    const double top = upper ? upper->epsilon(d).upper : std::numeric_limits<double>::infinity();
    return interval{std::min(top, std::max(comp ? comp->epsilon(d).lower : 0.0, tests[i])), top};
  };
  r.epsilon = lower_at(0);
  for (std::size_t i = 1; i < deltas.size(); ++i) r.more_epsilons.push_back(lower_at(i));
  r.upper_certified = upper.has_value();
  r.poisson_epsilons = poisson_contrast(c);
  const bool bins = c.sampling == sampling_scheme::balls_in_bins;
  const std::string up_text =
      upper ? "certified UPPER bound crediting NO amplification (G_{D/sigma} per epoch touched, "
              "mu = " +
                  fmt_exact(mu_up) + "; no amplification theorem fdp can apply is proven); "
            : std::string(
                  "NO certified upper bound (under add-remove, removing a record moves "
                  "every later record's batch; no amplification theorem fdp can apply is "
                  "proven for shuffling); ");
  r.route = std::string(bins ? "balls-in-bins batches (each record in one uniformly chosen step "
                               "per epoch): "
                             : "shuffled batches (each record in one step per epoch): ") +
            up_text +
            "certified LOWER bound from the input where one record's gradient has norm D and "
            "all others 0 (Chua et al. 2024): its step is uniform over the epoch's full batches, "
            "the balls-in-bins pair (a lattice garbling of it), whole epochs and the first phase's "
            "last partial one" +
            (antipodal ? "; replace-one: also tests on the input whose record's gradient is u "
                         "against -u (the sums of the outputs and of sinh(mu x) over the whole "
                         "epochs, the record in exactly one step of each)"
                       : "") +
            ": " + epochs_text;
  r.clt_mu = std::numeric_limits<double>::quiet_NaN();
  r.clt_formula =
      std::string("no CLT estimate for ") + (bins ? "balls-in-bins" : "shuffled") + " batches";
}

// The shifted step's tail each epoch's relaxed upper lattice may leave out
// (balls_in_bins_laws' relaxed_cap_tail; a delta floor of that much per
// epoch): a quarter of the largest asked delta over the run's epochs, at most
// 1e-7. Below that a floor would spend the delta asked, and building the
// lattice for nothing took 25 s (sigma 0.55, q 0.002, delta 1e-9).
double relaxed_tail_budget(const dpsgd_config& c, double epochs) {
  double most = c.delta;
  for (double d : c.more_deltas) most = std::max(most, d);
  return std::min(1e-7, 0.25 * most / std::max(1.0, epochs));
}

// The epochs of all phases (about: q x steps each, and one more).
double dpsgd_epochs(const std::vector<dpsgd_phase>& ps) {
  double e = 0.0;
  for (const auto& p : ps) e += std::ceil(p.q * static_cast<double>(p.steps)) + 1.0;
  return e;
}

// One phase of balls-in-bins batches as composition terms. Its epochs have
// known_t steps when the loader's count is known, else floor(1/q) or
// ceil(1/q) (a loader's choice between them): fewer steps amplify less, so
// the upper side takes floor(1/q) steps per epoch and every epoch touched
// (ceil(T / floor(1/q)), one more for a phase after the first, which may
// start mid-epoch; a partial epoch is a prefix of a whole one, a
// post-processing), the lower side ceil(1/q) steps and whole epochs
// (lower_side_epochs), and the first phase's last partial epoch diluted.
// Other epochs only the upper
// side counts get Id as their lower side. `shift` is
// the record's: D, or D/2 under replace-one (the zero-out pair of the
// record's own bound; account_balls_in_bins). Empty when a lattice is too
// large.
std::vector<compose_term> balls_in_bins_terms(const std::vector<dpsgd_phase>& ps, std::size_t phase,
                                              double shift, std::int64_t known_t,
                                              double relaxed_tail) {
  const dpsgd_phase& p = ps[phase];
  const epoch_length e = epoch_length_of(p.q, known_t);
  const std::int64_t t_up = e.full, t_lo = e.with_partial;
  const std::int64_t e_up = (p.steps + t_up - 1) / t_up + (phase > 0 ? 1 : 0);
  const std::int64_t e_lo = lower_side_epochs(ps, phase, known_t, t_lo);
  // (the upper side with a relaxed cap: account_balls_in_bins caps it by the
  // bound without amplification, so a delta floor per epoch
  // (relaxed_tail_budget) costs nothing where that one is better; the lower
  // side's garbling is of no use on so coarse a lattice: where the usual one
  // does not serve, the maximum of the epoch's outputs, epoch_lower_term's)
  const law_bracket up = balls_in_bins_laws(p.sigma / shift, t_up, true, false, 1.0, relaxed_tail);
  const compose_term below =
      epoch_lower_term(p.sigma / shift, t_lo, static_cast<double>(t_lo), 1.0);
  const std::shared_ptr<const loss_law> lo = below.law;
  if (!up.upper) return {};
  std::shared_ptr<const loss_law> id(make_law(identity{}).release());
  std::vector<compose_term> terms;
  auto add = [&](std::shared_ptr<const loss_law> opt, std::int64_t times, const std::string& text) {
    if (times <= 0) return;
    compose_term t;
    t.law = up.upper;
    t.law_opt = std::move(opt);
    t.times = times;
    t.text = text;
    terms.push_back(std::move(t));
  };
  const std::string epoch = "balls-in-bins epoch of " + std::to_string(t_up) +
                            (t_up == t_lo ? "" : "/" + std::to_string(t_lo)) + " steps";
  add(lo, std::min(e_up, e_lo), epoch + " (below: " + below.text + ")");
  std::int64_t partial = e_up - std::min(e_up, e_lo);
  // The first phase's last, partial epoch of m < t_lo steps: on the lower
  // side's input its record is in one of them with probability m/t_lo,
  // uniformly (the pair (P, (1 - m/t_lo) P + (m/t_lo) Q) of m steps); a run
  // shorter than an epoch read 0 below. (Later phases may start mid-epoch:
  // Id there.)
  const std::int64_t m = p.steps - e_lo * t_lo;
  if (phase == 0 && m > 0 && partial > 0) {
    const double rho = static_cast<double>(m) / static_cast<double>(t_lo);
    const compose_term diluted = epoch_lower_term(p.sigma / shift, m, static_cast<double>(m), rho);
    add(diluted.law, 1, epoch + " (partial: " + std::to_string(m) + " steps below)");
    --partial;
  }
  add(id, partial, epoch + " (partial: upper side only)");
  return terms;
}

// Replace-one, balls-in-bins: each epoch's group-2 power, composed. Given
// the run so far, one epoch on x against x0 (the record's gradient zeroed)
// and on x0 against x' is f_e-DP, f_e its zero-out pair's trade-off (the
// pair dominates one epoch of adaptive steps from any state), so on x
// against x' it is g_e-DP, g_e = f_e(1 - f_e(a)) (Dong, Roth & Su, Thm
// 2.14), for every history, and the epochs compose (their Thm 3.2). Each
// g_e is the group power of a polygon certified below f_e, composed as
// that polygon's law. (The group power of the whole run's composition
// multiplies the lattices' left-out tails, a delta floor of ~1e-11 per
// epoch, by about e^{eps/2} of the run: the S3b-like run read inf there;
// an epoch's own e^{eps/2} is small.)
composition epochwise_pairs_of_groups(const std::vector<compose_term>& terms,
                                      const compose_options& o) {
  std::vector<compose_term> grouped;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const compose_term& t = terms[i];
    compose_term g;
    if (i > 0 && terms[i - 1].law == t.law) {  // (the same epoch law: its power again)
      g = grouped.back();
    } else {
      compose_term one = t;
      one.times = 1;
      one.law_opt = nullptr;
      const tradeoff_bracket power = group(compose_terms({one}, o), 2);
      g.law = std::shared_ptr<const loss_law>(make_law(tradeoff(power.lower())).release());
      g.text = "group-2 power of one " + t.text;
    }
    g.times = t.times;
    grouped.push_back(std::move(g));
  }
  return compose_terms(grouped, o);
}

// Balls-in-bins batches (each record in one uniformly chosen step per
// epoch): both ends certified under add-remove and zero-out from the epoch's
// tightly dominating pair (balls_in_bins_laws). Under replace-one (x replaced
// by x' in the same step) the same pair at the record's own bound D/2 bounds
// both halves of the way through x0, a record with zero gradient: T(M(x),
// M(x0)) and T(M(x0), M(x')) are both at least the composed zero-out curve
// f (symmetrized), so T(M(x), M(x')) >= f(1 - f(a)), group privacy with k = 2
// (Dong, Roth & Su, Thm 2.14's step): the upper end; x' = x0 itself is a
// replace-one neighbour: a lower end, and so is the input whose record's
// gradient is u against -u (antipodal_epochs_lower's tests, the sharper
// where it serves). The bound without amplification also
// caps the upper end (both are valid). Falls back to the shuffle route (the
// max statistic, no amplification above) when a lattice is too large.
void account_balls_in_bins(const dpsgd_config& c, const std::vector<dpsgd_phase>& ps,
                           dpsgd_report& r) {
  const bool ro = c.neighbours == neighbour_relation::replace_one;
  const double shift = ro ? 0.5 * r.sensitivity : r.sensitivity;
  const double relaxed_tail = relaxed_tail_budget(c, dpsgd_epochs(ps));
  std::vector<compose_term> terms;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const auto more = balls_in_bins_terms(ps, i, shift, c.steps_per_epoch, relaxed_tail);
    if (more.empty()) return account_one_step_per_epoch(c, ps, r);
    terms.insert(terms.end(), more.begin(), more.end());
  }
  const composition comp = compose_terms(terms, options_of(c));
  const std::optional<tradeoff_bracket> pair_of_groups =
      ro ? std::optional<tradeoff_bracket>(group(comp, 2)) : std::nullopt;
  const std::optional<composition> epochwise =
      ro ? std::optional<composition>(epochwise_pairs_of_groups(terms, options_of(c)))
         : std::nullopt;
  const double mu_up = no_amplification_mu(c, ps, r.sensitivity);
  const composition cap = compose({parse_spec("gdp:mu=" + fmt_exact(mu_up))}, options_of(c));
  const std::vector<double> deltas = asked_deltas(c);
  const std::vector<double> antipodal =
      ro ? antipodal_epochs_lower(c, ps, shift, deltas) : std::vector<double>(deltas.size(), 0.0);
  auto at = [&](std::size_t i) {
    const double d = deltas[i];
    const double up = pair_of_groups
                          ? std::min(pair_of_groups->epsilon(d).upper, epochwise->epsilon(d).upper)
                          : comp.epsilon(d).upper;
    const double top = std::min(cap.epsilon(d).upper, up);
    return interval{std::min(top, std::max(comp.epsilon(d).lower, antipodal[i])), top};
  };
  r.epsilon = at(0);
  for (std::size_t i = 1; i < deltas.size(); ++i) r.more_epsilons.push_back(at(i));
  r.upper_certified = true;
  r.poisson_epsilons = poisson_contrast(c);
  std::string epochs;
  for (const auto& t : terms)
    epochs += (epochs.empty() ? "" : " + ") + std::to_string(t.times) + " x " + t.text;
  r.route = std::string(
                "balls-in-bins batches (each record in one uniformly chosen step per epoch), "
                "each epoch accounted by its tightly dominating pair N(0, I_t) vs the "
                "(1/t)-mixture of N(D e_i / sigma, I_t) (Chua et al. 2025): above, an exact "
                "lattice pair that refines it (below sigma ~0.7 its lattice leaves out up to "
                "1e-7 of the shifted step's tail per epoch, counted in delta); below, a "
                "garbling of it, a lattice pair or the maximum of the epoch's outputs: ") +
            (ro ? "replace-one: below, the larger of the zero-out pair at half the bound "
                  "(the record replaced by one with zero gradient) and tests on the input "
                  "whose record's gradient is u against -u (the sums of the outputs and of "
                  "sinh(mu x) over the whole epochs), above, the zero-out pair's group-2 power "
                  "(the replacement as two zero-out steps), of the run or of each epoch "
                  "composed, the smaller; "
                : "") +
            epochs;
  r.clt_mu = std::numeric_limits<double>::quiet_NaN();
  r.clt_formula = "no CLT estimate for balls-in-bins batches";
}

// Random allocation (each record in exactly k of the run's T steps, chosen
// uniformly; one round). Above: the reduction of k-out-of-T allocation to
// balls-in-bins epochs (Feldman & Shenfeld 2025, arXiv:2502.08202; their
// RA_PLD composes the same epochs): cut a uniformly shuffled list of the T
// steps into k blocks, T mod k of them of m + 1 steps and the rest of m =
// floor(T/k), and take one uniform step of each. The k-subset so drawn has
// a law invariant under permutations of the steps, so it is uniform: the
// run's allocation. Revealing the blocks only helps a test, and given them
// the round is k independent 1-out-of-block allocations, balls-in-bins
// epochs (balls_in_bins_terms' laws, refinement side). Below: tests on the
// input whose outputs are the dominating pair itself
// (random_allocation_epsilon_lower). Replace-one as for balls-in-bins: the
// zero-out pair of half the bound and the u against -u input's tests
// (antipodal_allocation_epsilon_lower) below, its group-2 power above; the bound
// crediting no amplification (the record in k steps, G_{sqrt(k) D/sigma})
// caps the upper end.
std::optional<composition> allocation_upper(const dpsgd_config& c, double sigma, std::int64_t k,
                                            std::string& text) {
  const std::int64_t m = c.steps / k, longer = c.steps % k;
  std::vector<compose_term> terms;
  for (const auto& [size, count] : {std::pair{m, k - longer}, std::pair{m + 1, longer}}) {
    if (count == 0) continue;
    // (relaxed cap: the bound without amplification caps the upper end)
    const law_bracket bins = balls_in_bins_laws(sigma, size, true, false, 1.0,
                                                relaxed_tail_budget(c, static_cast<double>(k)));
    if (!bins.upper) return std::nullopt;
    compose_term t;
    t.law = bins.upper;
    t.times = count;
    t.text = "balls-in-bins epoch of " + std::to_string(size) + " steps";
    text += (text.empty() ? "" : " + ") + std::to_string(count) + " x " + t.text;
    terms.push_back(std::move(t));
  }
  return compose_terms(terms, options_of(c));
}

// k = 1 is one balls-in-bins epoch of T steps: its lower law there (the
// lattice garbling of the dominating pair, or the max statistic when the
// lattice is too large) is a test on the same pair, often sharper than the
// sums' (sigma = 0.6, 1 of 20 steps: 1.84 against 0.62 at delta 1e-2).
std::vector<double> one_epoch_lower(const dpsgd_config& c, double sigma,
                                    const std::vector<double>& deltas) {
  const compose_term t = epoch_lower_term(sigma, c.steps, static_cast<double>(c.steps), 1.0);
  const composition comp = compose_terms({t}, options_of(c));
  std::vector<double> out;
  for (double d : deltas) out.push_back(comp.epsilon(d).lower);
  return out;
}

void account_random_allocation(const dpsgd_config& c, dpsgd_report& r) {
  const bool ro = c.neighbours == neighbour_relation::replace_one;
  const double shift = ro ? 0.5 * r.sensitivity : r.sensitivity;
  const std::int64_t k = allocation_uses(c);
  const double mu_cap = std::sqrt(static_cast<double>(k)) * r.sensitivity / c.sigma;
  const composition cap = compose({parse_spec("gdp:mu=" + fmt_exact(mu_cap))}, options_of(c));
  std::string epochs;
  const std::optional<composition> comp = allocation_upper(c, c.sigma / shift, k, epochs);
  const std::vector<double> deltas = asked_deltas(c);
  std::vector<double> lower = random_allocation_epsilon_lower(c.sigma / shift, c.steps, k, deltas);
  if (k == 1) {
    const std::vector<double> epoch = one_epoch_lower(c, c.sigma / shift, deltas);
    for (std::size_t i = 0; i < deltas.size(); ++i) lower[i] = std::max(lower[i], epoch[i]);
  }
  if (ro) {
    const std::vector<double> antipodal =
        antipodal_allocation_epsilon_lower(c.sigma / shift, c.steps, k, deltas);
    for (std::size_t i = 0; i < deltas.size(); ++i) lower[i] = std::max(lower[i], antipodal[i]);
  }
  auto at = [&](std::size_t i) {
    double up = cap.epsilon(deltas[i]).upper;
    if (comp)
      up = std::min(up,
                    ro ? group(*comp, 2).epsilon(deltas[i]).upper : comp->epsilon(deltas[i]).upper);
    return interval{std::min(lower[i], up), up};
  };
  r.epsilon = at(0);
  for (std::size_t i = 1; i < deltas.size(); ++i) r.more_epsilons.push_back(at(i));
  r.upper_certified = true;
  r.poisson_epsilons = poisson_contrast(c);
  r.route =
      "random allocation (each record in exactly " + std::to_string(k) + " of the run's " +
      std::to_string(c.steps) + " steps, chosen uniformly): above, " +
      (comp ? epochs +
                  " (Feldman & Shenfeld 2025's reduction), each the refinement lattice pair of "
                  "Chua et al. 2025's dominating pair"
            : "no amplification (the lattice cannot serve at this sigma): G_{sqrt(k) D/sigma}") +
      "; below, tests on the input whose outputs are the dominating pair (the sum of "
      "the outputs, the largest output, and a function of their likelihood ratios on a "
      "lattice" +
      (k == 1 ? "; with one use, also the balls-in-bins epoch's own lower law" : "") + ")" +
      (ro ? "; replace-one: below, the larger of the zero-out pair at half the bound and "
            "tests on the input whose record's gradient is u against -u (the sums of the "
            "outputs and of sinh(mu x)), above, the zero-out pair's group-2 power"
          : "");
  r.clt_mu = std::numeric_limits<double>::quiet_NaN();
  r.clt_formula = "no CLT estimate for random-allocation batches";
}

}  // namespace

std::vector<dpsgd_phase> dpsgd_phases(const dpsgd_config& c) {
  std::vector<dpsgd_phase> ps{{c.q, c.sigma, c.steps}};
  ps.insert(ps.end(), c.later_phases.begin(), c.later_phases.end());
  return ps;
}

// (replace-one: the spec's sensitivity is one record's bound, half the
// largest change D of the sum)
std::string dpsgd_phase_spec(const dpsgd_phase& p, double sensitivity, neighbour_relation n) {
  const bool ro = n == neighbour_relation::replace_one;
  return "subsampled-gaussian:sigma=" + fmt_exact(p.sigma) + ",q=" + fmt_exact(p.q) +
         ",sensitivity=" + fmt_exact(ro ? 0.5 * sensitivity : sensitivity) +
         (n == neighbour_relation::add_remove ? "" : ",neighbours=" + to_string(n)) +
         ",times=" + std::to_string(p.steps);
}

dpsgd_config dpsgd_config_of(const spec& s) {
  if (s.name != "subsampled-gaussian" || s.number("group") != 1)
    throw std::invalid_argument(
        "dpsgd: a DP-SGD run is one subsampled-gaussian spec without "
        "group=, not '" +
        s.text + "'");
  dpsgd_config c;
  c.sigma = s.number("sigma");
  c.q = s.number("q");
  c.steps = s.times;
  c.neighbours = parse_neighbours(s.choice("neighbours"));
  const bool ro = c.neighbours == neighbour_relation::replace_one;
  c.sensitivity = (ro ? 2.0 : 1.0) * s.number("sensitivity");  // (as dpsgd_phase_spec halves it)
  if (s.choice("sampling") == "truncated-poisson") {
    c.sampling = sampling_scheme::truncated_poisson;
    c.max_batch_size = static_cast<std::int64_t>(s.number("max-batch"));
    c.dataset_size = static_cast<std::int64_t>(s.number("dataset-size"));
  }
  return c;
}

double dpsgd_sensitivity(const dpsgd_config& c) {
  if (c.sensitivity > 0) return c.sensitivity;
  return c.neighbours == neighbour_relation::replace_one ? 2.0 : 1.0;
}

dpsgd_report account_dpsgd(const dpsgd_config& c) {
  validate(c);
  const auto t0 = std::chrono::steady_clock::now();
  dpsgd_report r;
  r.sensitivity = dpsgd_sensitivity(c);
  const std::vector<dpsgd_phase> ps = dpsgd_phases(c);
  // (fixed-size batches under replace-one: DRS's C_p is tighter than the
  // mirrored pair of twice the bound that the spec route would use)
  const bool by_drs = c.sampling == sampling_scheme::without_replacement &&
                      c.neighbours == neighbour_relation::replace_one;
  if (c.sampling == sampling_scheme::balls_in_bins)
    account_balls_in_bins(c, ps, r);
  else if (c.sampling == sampling_scheme::random_allocation)
    account_random_allocation(c, r);
  else if (c.sampling == sampling_scheme::shuffle)
    account_one_step_per_epoch(c, ps, r);
  else if (by_drs)
    account_fixed_size(c, ps, r);
  else
    account_by_specs(c, ps, r);
  r.clt_epsilon = std::isnan(r.clt_mu) ? r.clt_mu : gdp_eps(r.clt_mu, c.delta);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace fdp
