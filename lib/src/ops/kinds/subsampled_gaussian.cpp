// Spec kind "subsampled-gaussian": the Gaussian mechanism (noise sigma) on a
// Poisson subsample of rate q, one record contributing at most S (l2) to
// the released sum: DP-SGD's step. The dominating pair by neighbour relation:
//  * add-remove: P = N(0, sigma^2), Q = (1 - q) N(0, sigma^2) + q N(S, sigma^2)
//    and the reverse order (Koskela, Jalko & Honkela 2020; Zhu, Dong & Wang
//    2022): the other records' sum is common to both datasets and independent
//    of the noise (post-processing), and along the record's contribution u,
//    |u| <= S, the pair for |u| = S dominates.
//  * zero-out (replace-special; Kairouz et al. 2021, dp_accounting's
//    REPLACE_SPECIAL): the record is replaced by one that contributes 0, which
//    moves the sum exactly as removing it: the same pair, both orders.
//  * replace-one: the record's contribution u becomes u', both of norm <= S:
//    P = (1-q) N(0, sigma^2) + q N(-S, sigma^2), Q = (1-q) N(0, sigma^2) +
//    q N(S, sigma^2) (mirror images, so one order; dp_accounting's REPLACE_ONE
//    pair). Why it dominates (for every neighbouring pair, every step, so
//    it composes adaptively): the others' sum is common and independent of
//    the record's coin, so the step is at least as private as (1-q) N(0) +
//    q N(u) against (1-q) N(0) + q N(u'), |u|, |u'| <= S in R^d. For u' = -u
//    the map y -> (y/S) u + sqrt(1 - |u|^2/S^2) Z_perp carries the 1-D pair
//    onto it (post-processing). For any u, u' the pair is proven dominating
//    by Lebeda, Regehr, Kamath & Steinke (SaTML 2025, "Avoiding pitfalls for
//    privacy accounting of subsampled mechanisms under composition", Prop.
//    13, as cited in Google's PLD notes) and, as one insertion plus one
//    deletion, by Schuchardt, Stoian, Kosmala & Guennemann (NeurIPS 2024,
//    "Unified mechanism-specific amplification by subsampling", Thm 3.8);
//    a numeric check in 2-D (150 random u, u', q, sigma) found no excess.
//    At q = 1 it is G_{2S/sigma}.
// sampling=without-replacement: each step's batch is a uniform subset of
// exactly qN records (N the dataset's size; under add-remove the larger of
// the two, which covers both neighbours: a smaller rate is more private).
// With x the differing record, the batch of the dataset without x is a
// uniform q N-subset T of the others; with x it is T, or (probability q) T
// with a uniform member t swapped for x. Given (T, t) the step is the
// Poisson pair at rate q whose shift is u_x - u_t (or u_x - u_t against
// u_x' - u_t, or -u_t under zero-out): norms <= 2S. So it is this kind's
// Poisson spec with sensitivity 2S: the add/remove pair under add-remove
// (met exactly when every other record's gradient is -u_x: tight), the
// mirrored pair with bound 2S under zero-out and replace-one (Lebeda et al.
// Prop. 13, any two shifts within the bound).
// sampling=truncated-poisson (max-batch=B, dataset-size=N): Poisson batches
// cut to B records at random; its pair and why it dominates are in
// fdp/ops/truncated_poisson.hpp.
// No closed form for q < 1: the composition is the PLD engine's.
#include <cmath>
#include <limits>

#include "fdp/ops/max_statistic.hpp"
#include "fdp/ops/truncated_poisson.hpp"
#include "ops/kind_support.hpp"

namespace fdp {
namespace {

struct params {
  double sigma, q, d;
  int group;  // K: the examples one user contributes (user-level accounting)
  neighbour_relation rel;
  // truncated Poisson (both 0 under plain Poisson sampling)
  std::int64_t max_batch, dataset_size;
};

constexpr const char* kTruncated = "truncated-poisson";
constexpr const char* kFixedSize = "without-replacement";

// sampling=truncated-poisson needs max-batch and dataset-size; Poisson takes neither.
void check_truncation_keys(const spec& s, bool truncated) {
  for (const char* key : {"max-batch", "dataset-size"}) {
    if (truncated && !s.has(key))
      throw std::invalid_argument("spec '" + s.text + "': sampling=truncated-poisson needs " + key +
                                  "= (an integer >= 1)");
    if (!truncated && s.has(key))
      throw std::invalid_argument("spec '" + s.text + "': " + key +
                                  " applies to sampling=truncated-poisson only");
  }
}

params params_of(const spec& s) {
  const bool truncated = s.choice("sampling") == kTruncated;
  const int group = static_cast<int>(s.number("group"));
  check_truncation_keys(s, truncated);
  if (group > 1 && s.choice("sampling") != "poisson")
    throw std::invalid_argument("spec '" + s.text +
                                "': group > 1 is accounted under Poisson "
                                "sampling only (no pair for a user's K examples under sampling=" +
                                s.choice("sampling") + ")");
  params p{s.number("sigma"),
           s.number("q"),
           s.number("sensitivity"),
           group,
           kinds::neighbours_of(s),
           0,
           0};
  if (truncated) {
    p.max_batch = static_cast<std::int64_t>(s.number("max-batch"));
    p.dataset_size = static_cast<std::int64_t>(s.number("dataset-size"));
  }
  if (s.choice("sampling") == kFixedSize) {
    // (the Poisson pair of twice the bound: see the top of this file)
    p.d *= 2.0;
    if (p.rel == neighbour_relation::zero_out) p.rel = neighbour_relation::replace_one;
  }
  return p;
}

bool replace_one(const params& p) { return p.rel == neighbour_relation::replace_one; }
bool truncated(const params& p) { return p.max_batch > 0; }

// Replace-one: (1-q) N(0) + q N(-d) against (1-q) N(0) + q N(d), noise sigma.
std::shared_ptr<const loss_law> replace_one_law(double sigma, double d, double q) {
  return poisson_gaussian_law(sigma, d, q, neighbour_relation::replace_one);
}

// Truncated Poisson: the revealed mixture of truncated_poisson.hpp. Its GDP
// cap is the largest of its branches' (a mixture of pairs above G_c is
// above G_c): the cut branch's shift 2d, mirrored (4d) unless add-remove.
compose_term truncated_term(const params& p) {
  compose_term t;
  t.law = truncated_poisson_gaussian_law(p.sigma, p.d, p.q, p.max_batch, p.dataset_size, p.rel);
  const truncation_split cut = truncated_poisson_split(p.q, p.max_batch, p.dataset_size);
  const double uncut_cap = (replace_one(p) ? 2.0 : 1.0) * p.d / p.sigma;
  const double cut_cap = (p.rel == neighbour_relation::add_remove ? 2.0 : 4.0) * p.d / p.sigma;
  t.gdp_cap = cut.p_cut > 0.0 ? std::max(uncut_cap, cut_cap) : uncut_cap;
  return t;
}

// User-level DP-SGD: a user's K examples each enter a Poisson batch with
// probability q, so J ~ Binomial(K, q) of them do, and their clipped
// gradients (each of norm <= d) move the sum by at most J d, all K aligned
// being the worst case: P = N(0, sigma^2), Q = sum_j Bin(K, q)(j) N(j d,
// sigma^2) (the accounting of TF-Privacy's compute_dp_sgd_privacy_lib for
// users with several examples; Ganesh 2024). Weights below the double range
// are left out (the rest is renormalized by at most 1e-300 relative).
std::shared_ptr<const loss_law> group_law(const params& p) {
  std::vector<double> shifts, weights;
  for (int j = 0; j <= p.group; ++j) {
    const double k = p.group, jj = j;
    const double log_w = std::lgamma(k + 1) - std::lgamma(jj + 1) - std::lgamma(k - jj + 1) +
                         jj * std::log(p.q) + (k - jj) * std::log1p(-p.q);
    const double w = p.q == 1.0 ? (j == p.group ? 1.0 : 0.0) : std::exp(log_w);
    if (w > 0) shifts.push_back(jj * p.d), weights.push_back(w);
  }
  double total = 0.0;
  for (double w : weights) total += w;
  for (double& w : weights) w /= total;
  return gaussian_mixture_law(p.sigma, std::move(shifts), std::move(weights));
}

// The hooks below have formulas for one example per user only.
void require_one_example(const params& p, const spec& s, const char* what) {
  if (p.group > 1)
    throw std::invalid_argument("spec '" + s.text + "': " + what +
                                " is available for group = 1 only (the compositions are)");
}

compose_term replace_one_term(const spec& s, const params& p) {
  if (p.group > 1)
    throw std::invalid_argument("spec '" + s.text +
                                "': group > 1 is accounted under add-remove or zero-out "
                                "neighbours only (no replace-one pair for a user's K examples)");
  compose_term t;
  t.law = replace_one_law(p.sigma, p.d, p.q);
  if (p.q == 1.0) t.closed = tradeoff(gaussian(2.0 * p.d / p.sigma));
  // the pair mixes, with one coin, (N(0), N(0)) and (N(-d), N(d)), whose
  // curves lie above G_{2d/sigma}: so does the mixture's (revealing the coin
  // only helps a test)
  t.gdp_cap = 2.0 * p.d / p.sigma;
  return t;
}

compose_term term(const spec& s) {
  const params p = params_of(s);
  if (truncated(p)) return truncated_term(p);
  if (replace_one(p)) return replace_one_term(s, p);
  compose_term t;
  if (p.group > 1 && p.q < 1.0) {
    t.law = group_law(p);
  } else {
    const double d = p.d * p.group;  // (q = 1: all K examples, a shift of K d)
    t.law = subsampled_gaussian_law(p.sigma, d, p.q);
    if (p.q == 1.0) t.closed = tradeoff(gaussian(d / p.sigma));
    // the largest output's tests (fdp/ops/max_statistic.hpp): this pair,
    // in units of its shift d
    if (p.q < 1.0) {
      t.delta_floor = [pair = max_statistic_pair{p.sigma / d, p.q, 1}](double eps, std::int64_t n) {
        return max_statistic_delta_lower({pair.s, pair.q, n}, eps);
      };
    }
  }
  // Poisson subsampling only mixes P into Q: f_q >= f = G_{d/sigma} in
  // both orders (DRS Thm 4.2: C_q(f) >= f); a mixture of shifts up to K d
  // is at least as private as the shift K d (the hockey-stick divergence is
  // jointly convex, and largest for the largest shift)
  t.gdp_cap = p.group * p.d / p.sigma;
  return t;
}

// Mironov, Talwar & Zhang 2019, Sec. 3.3: integer orders only.
rdp_curve rdp(const spec& s, const std::vector<double>& orders) {
  const params p = params_of(s);
  if (p.group > 1) return {{}, 0.0, "no RDP formula for group > 1 (fdp composes its PLD)"};
  if (truncated(p))
    return {{}, 0.0, "no RDP formula for truncated Poisson sampling (fdp composes its PLD)"};
  if (replace_one(p))
    return {{}, 0.0, "no RDP formula for replace-one neighbours (fdp composes its PLD)"};
  const double inf = std::numeric_limits<double>::infinity();
  return {kinds::at_orders(orders,
                           [&](double a) {
                             return a == std::floor(a)
                                        ? rdp_subsampled_gaussian(p.sigma / p.d, p.q, a)
                                        : inf;
                           }),
          0.0,
          {}};
}

// Bu, Dong, Long & Su 2020's limit: as G_m with m^2 = q^2 (e^{(S/sigma)^2} - 1),
// the variance under N(0) of the loss to first order in q, q (e^{u(x)} - 1)
// with u the log-density ratio of N(S) to N(0). Under replace-one the loss is
// to first order q (e^{u(x)} - e^{u(-x)}), and with E e^{2u} = e^{mu0^2},
// u(x) + u(-x) = -mu0^2: m^2 = 2 q^2 (e^{mu0^2} - e^{-mu0^2}) (at q = 1: G_{2 mu0}).
clt_moments clt(const spec& s) {
  const params p = params_of(s);
  if (p.group > 1) return {0.0, 0.0, "no CLT formula for group > 1"};
  if (truncated(p)) return {0.0, 0.0, "no CLT formula for truncated Poisson sampling"};
  const double mu0 = p.d / p.sigma, m0 = mu0 * mu0;
  double m2 = p.q < 1 ? p.q * p.q * std::expm1(m0) : m0;
  if (replace_one(p)) m2 = p.q < 1 ? 4.0 * p.q * p.q * std::sinh(m0) : 4.0 * m0;
  return {0.5 * m2, m2, {}};
}

// (sensitivity d with noise sigma is sensitivity 1 with noise sigma/d)
loss_cumulants edgeworth(const spec& s) {
  const params p = params_of(s);
  require_one_example(p, s, "the Edgeworth expansion");
  if (truncated(p))
    throw std::invalid_argument("spec '" + s.text +
                                "': no Edgeworth cumulants under truncated Poisson sampling");
  if (replace_one(p))
    throw std::invalid_argument("spec '" + s.text +
                                "': no Edgeworth cumulants under replace-one neighbours");
  return subsampled_gaussian_loss_cumulants(p.sigma / p.d, p.q);
}

ledger_form ledger(const spec& s, const kinds::stored_points*) {
  (void)make_term(s);  // (validates every parameter the way compose does)
  const params p = params_of(s);
  if (truncated(p)) {
    ledger_form f;
    const double sr = p.sigma / p.d;
    f.key_name = "subsampled-gaussian-truncated-" + to_string(p.rel);
    f.key_values = {{"s", sr},
                    {"q", p.q},
                    {"max-batch", static_cast<double>(p.max_batch)},
                    {"dataset-size", static_cast<double>(p.dataset_size)}};
    f.law = truncated_poisson_gaussian_law(sr, 1.0, p.q, p.max_batch, p.dataset_size, p.rel);
    return f;
  }
  if (replace_one(p)) {
    const double sr = p.sigma / p.d;
    if (p.q == 1.0) return kinds::gaussian_ledger_of(2.0 / sr);
    ledger_form f;
    f.key_name = "subsampled-gaussian-replace-one";
    f.key_values = {{"s", sr}, {"q", p.q}};
    f.law = replace_one_law(sr, 1.0, p.q);
    return f;
  }
  // (zero-out: the add-remove pair, the same record)
  const double sr = p.sigma / (p.d * (p.q == 1.0 ? p.group : 1));
  if (p.q == 1.0) return kinds::gaussian_ledger_of(1.0 / sr);
  ledger_form f;
  if (p.group > 1) {
    f.key_name = "subsampled-gaussian-group";
    f.key_values = {{"s", sr}, {"q", p.q}, {"group", static_cast<double>(p.group)}};
    f.law = group_law({sr, p.q, 1.0, p.group, p.rel, 0, 0});
    return f;
  }
  f.key_name = "subsampled-gaussian";
  f.key_values = {{"s", sr}, {"q", p.q}};
  f.law = subsampled_gaussian_law(sr, 1.0, p.q);
  return f;
}

bool probe_replaces(const spec& probe) {
  auto it = probe.params.find("neighbours");
  return it != probe.params.end() && it->second == "replace-one";
}

// Starts: sigma from Bu et al.'s CLT limit (m^2 = q^2 T (e^{1/s^2} - 1) = mu^2;
// replace-one: 4 q^2 T sinh(1/s^2) = mu^2), q from the same solved for q.
double start_sigma(const spec& probe, double mu) {
  const double T = static_cast<double>(probe.times);
  const double sens = kinds::probe_number(probe, "sensitivity", 1.0),
               q = kinds::probe_number(probe, "q", 1.0);
  const bool ro = probe_replaces(probe);
  if (q < 1 && ro) return sens / std::sqrt(std::asinh(mu * mu / (4.0 * q * q * T)));
  if (q < 1) return sens / std::sqrt(std::log1p(mu * mu / (q * q * T)));
  return (ro ? 2.0 : 1.0) * sens * std::sqrt(T) / mu;
}

double start_q(const spec& probe, double mu) {
  const double T = static_cast<double>(probe.times);
  const double s =
      kinds::probe_number(probe, "sigma", 1.0) / kinds::probe_number(probe, "sensitivity", 1.0);
  return std::clamp(mu / std::sqrt(T * std::expm1(1.0 / (s * s))), 1e-9, 1.0);
}

std::vector<calibration_param> calibration() {
  calibration_param sigma, q, sensitivity;
  sigma.key = "sigma";
  sigma.smallest = true;
  sigma.start = start_sigma;
  q.key = "q";
  q.hi = 1.0;
  q.start = start_q;
  sensitivity.key = "sensitivity";
  for (auto* c : {&sigma, &q, &sensitivity}) c->first_step = 1.04;  // (the start is close: gdp.cpp)
  return {sigma, q, sensitivity, kinds::calibrate_times()};
}

}  // namespace

spec_kind spec_kind_subsampled_gaussian() {
  spec_kind k;
  k.name = "subsampled-gaussian";
  k.doc = "Gaussian mechanism under Poisson subsampling with rate q (DP-SGD's step)";
  k.example = "subsampled-gaussian:sigma=1.1,q=0.01,times=1000";
  k.keys = {
      required_key("sigma", "SIGMA", kPositive, "noise standard deviation"),
      required_key("q", "Q", kRate, "Poisson sampling rate"),
      optional_key("sensitivity", "S", 1.0, kPositive,
                   "l2 bound on one record's contribution (its add/remove sensitivity; "
                   "a replacement moves the sum by up to 2S)"),
      integer_key("group", "K", 1, 1, 1000,
                  "examples per user (user-level accounting: Binomial(K, q) of them "
                  "in a batch)"),
      kinds::neighbours_key(),
      choice_key("sampling", {"poisson", kTruncated, kFixedSize}, "poisson",
                 "batch sampling: each record joins each batch independently with "
                 "probability q; truncated-poisson: and a batch of more than max-batch "
                 "records is cut to max-batch at random; without-replacement: each batch "
                 "is a uniform subset of exactly qN records"),
      conditional_integer_key("max-batch", "B", 1, 1e12,
                              "truncated-poisson: the largest batch; required with it"),
      conditional_integer_key("dataset-size", "N", 1, 1e12,
                              "truncated-poisson: records in the dataset; under add-remove the "
                              "larger of the pair (a dataset of N records needs N and N+1, as fdp "
                              "dpsgd accounts); required with it")};
  k.term = term;
  k.rdp = rdp;
  k.clt = clt;
  k.edgeworth = edgeworth;
  k.calibration = calibration();
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
