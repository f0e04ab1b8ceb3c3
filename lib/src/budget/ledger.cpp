#include "fdp/budget/ledger.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <variant>

#include "fdp/core/error.hpp"
#include "fdp/ops/compose_queries.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/loss_law.hpp"
#include "fdp/ops/rdp_curves.hpp"
#include "fdp/ops/spec.hpp"
#include "fdp/ops/spec_kind.hpp"
#include "budget/digest.hpp"
#include "budget/ledger_io.hpp"

namespace fdp {

namespace {

constexpr const char* kFormat = "fdp-ledger";
constexpr int kVersion = 2;  // version 1: no mode, no labels (read as plan)
constexpr std::size_t kMaxLabelBytes = 200;
// The engine's largest count per group of identical guarantees (incremental_pld::add).
constexpr std::int64_t kMaxGroupCount = 1000000000000LL;

std::string num17(double x) { return detail::json_number(x); }

double auto_grid_step(double eps) { return std::clamp(eps / 2000.0, 2e-4, 2e-3); }

// Discretization cut of the engine (incremental_pld.hpp): the tail mass each
// application leaves beyond its cut points (kept soundly; it moves delta by at
// most n * cut for n applications): 1e-10 of the budget's delta, so that even
// 10^6 applications change a delta near the budget's by 1e-4 of itself.
double engine_cut(double delta) { return std::clamp(1e-10 * delta, 1e-22, 1e-16); }

// The loss range a composition spending the whole budget spans, in the GDP
// picture (mean mu^2/2, sd mu, +-9 sd, both orientations): sizes the first FFT
// so that the window rarely has to grow (a re-plan) later.
double budget_window(double eps, double delta) {
  // (delta 0, pure DP: the composed losses stay within +-eps)
  if (delta == 0) return 2.0 * std::min(eps, 60.0) + 4.0;
  const double mu = std::min(30.0, gdp_mu(eps, delta));
  return 2.0 * (0.5 * mu * mu + 9.0 * mu) + 4.0;
}

}  // namespace

// A spec reduced to what the accounting needs.
struct accountant::prepared {
  std::string key;
  std::shared_ptr<const loss_law> law;
  std::int64_t times = 1;
  bool identity = false;
  bool gaussian = false;
  double mu = 0.0;
  double span = 0.0;  ///< distance between the two atoms of a Laplace / f_{eps,delta} law
  incremental_pld::garbler garble;
  std::vector<std::pair<double, double>> points;
  filter_cost cost;  ///< what the adaptive filter counts (times included)
};

std::string ledger_mode_name(ledger_mode m) { return m == ledger_mode::plan ? "plan" : "adaptive"; }

std::string ledger_integrity_name(ledger_integrity i) {
  switch (i) {
    case ledger_integrity::checksum:
      return "checksum";
    case ledger_integrity::hmac_verified:
      return "hmac-verified";
    case ledger_integrity::hmac_unverified:
      return "hmac-unverified";
    case ledger_integrity::none:
      break;
  }
  return "none";
}

namespace {

// The RDP curve of one application at the filter's orders: the kind's own
// (closed forms), else upper sums over the recorded law when its losses are
// bounded (curve specs: the stored points, so no file is read again); empty
// when there is none (unbounded losses, or a delta part: f_{eps,delta}).
std::vector<double> entry_rdp(const spec& s, const loss_law& law) {
  const auto& orders = privacy_filter::orders();
  if (s.kind().rdp) {
    rdp_curve c = spec_rdp(s, orders);
    if (!c.not_applicable.empty() || c.delta > 0) return {};
    return c.rdp;
  }
  if (!std::isfinite(law.lo()) || !std::isfinite(law.hi()) || law.p_neg_inf() > 0 ||
      law.q_pos_inf() > 0)
    return {};
  std::vector<double> r;
  for (double a : orders) r.push_back(rdp_of_law(law, a));
  return r;
}

// What the adaptive filter counts for one application (privacy_filter.hpp).
// law == nullptr: Id (costs nothing anywhere).
filter_cost one_application_cost(const spec& s, const loss_law* law, bool gaussian, double mu) {
  filter_cost c;
  if (!law) {
    c.pure_eps = c.mu2 = c.eps = c.delta_part = 0.0;
    c.rdp.assign(privacy_filter::orders().size(), 0.0);
    return c;
  }
  // pure DP: no mass at infinite loss and every finite loss in [lo, hi]; the
  // swapped pair's losses are the negatives, so max(-lo, hi) bounds both
  if (law->p_neg_inf() == 0 && law->q_pos_inf() == 0 && std::isfinite(law->lo()) &&
      std::isfinite(law->hi()))
    c.pure_eps = std::max({0.0, -law->lo(), law->hi()});
  if (gaussian) c.mu2 = mu * mu;
  if (s.kind().classic) {
    if (const auto ed = s.kind().classic(s)) {
      c.eps = ed->first;
      c.delta_part = ed->second;
    }
  }
  c.rdp = entry_rdp(s, *law);
  return c;
}

// Some filter can count it (else no adaptive ledger can take it, whatever the budget).
bool countable_adaptively(const filter_cost& c) {
  return std::isfinite(c.pure_eps) || std::isfinite(c.mu2) || !c.rdp.empty() ||
         std::isfinite(c.eps);
}

filter_cost times_cost(filter_cost c, std::int64_t times) {
  const double n = static_cast<double>(times);
  c.pure_eps *= n;
  c.mu2 *= n;
  c.eps *= n;
  c.delta_part *= n;
  for (double& r : c.rdp) r *= n;
  return c;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A label is printed by `fdp ledger list` and stored in JSON: one line of
// text, no terminal control sequences.
void check_label(const std::string& label) {
  detail::require(label.size() <= kMaxLabelBytes, "accountant::add", "label", label.size(),
                  "must be at most 200 bytes long");
  for (unsigned char ch : label) {
    if (ch < 0x20 || ch == 0x7f)
      throw std::invalid_argument(
          "accountant::add: label: must not contain control characters (found byte " +
          std::to_string(ch) + ")");
  }
}
// The constructor's arguments, checked before any member is built from
// them (the engine's arguments are evaluated in an unspecified order: a
// budget epsilon of -1 was reported by the window's gdp_mu, not by name).
double checked_budget_eps(double budget_eps, double budget_delta, const accountant_options& opt) {
  detail::require(std::isfinite(budget_eps) && budget_eps > 0, "accountant", "budget_eps",
                  budget_eps, "must be finite and > 0");
  detail::require(budget_delta >= 0 && budget_delta < 1, "accountant", "budget_delta", budget_delta,
                  "must be in [0, 1) (0: pure DP)");
  detail::require(opt.grid_step == 0 || (std::isfinite(opt.grid_step) && opt.grid_step >= 1e-6 &&
                                         opt.grid_step <= 0.1),
                  "accountant", "grid_step", opt.grid_step, "must be 0 (auto) or in [1e-6, 0.1]");
  detail::require(opt.tolerance > 0 && opt.tolerance < 1, "accountant", "tolerance", opt.tolerance,
                  "must be in (0, 1)");
  return budget_eps;
}
}  // namespace

accountant::accountant(double budget_eps, double budget_delta, const accountant_options& opt)
    : eps_(checked_budget_eps(budget_eps, budget_delta, opt)),
      delta_(budget_delta),
      mode_(opt.mode),
      filter_(budget_eps, budget_delta),
      pld_(opt.grid_step > 0 ? opt.grid_step : auto_grid_step(budget_eps),
           budget_window(budget_eps, budget_delta), engine_cut(budget_delta)),
      auto_grid_(opt.grid_step == 0),
      tolerance_(opt.tolerance),
      window_(budget_window(budget_eps, budget_delta)) {}

// The kind's record of one application (fdp/ops/spec_kind.hpp); the key
// written here, so that every kind's keys read alike.
accountant::prepared accountant::prepare(const std::string& text,
                                         const ledger_entry* stored) const {
  const spec s = parse_spec(text);
  ledger_form f = spec_ledger_form(s, stored ? &stored->points : nullptr);
  prepared p;
  p.times = s.times;
  if (f.identity) {
    p.identity = true;
    p.cost = one_application_cost(s, nullptr, false, 0.0);
    return p;
  }
  p.key = f.key_name + ":";
  if (!f.points.empty()) {
    std::string ser;
    for (const auto& [a, b] : f.points) ser += num17(a) + "," + num17(b) + ";";
    p.key += detail::sha256_hex(ser);
  }
  for (std::size_t i = 0; i < f.key_values.size(); ++i) {
    p.key += (i ? "," : "") + f.key_values[i].first + "=" + num17(f.key_values[i].second);
  }
  p.law = std::move(f.law);
  p.gaussian = f.gaussian;
  p.mu = f.mu;
  p.span = f.span;
  p.garble = std::move(f.garble);
  p.points = std::move(f.points);
  // one application's filter cost per key (a reload of many equal entries
  // computes it once), scaled by the repetitions
  auto it = cost_cache_.find(p.key);
  if (it == cost_cache_.end())
    it = cost_cache_.emplace(p.key, one_application_cost(s, p.law.get(), p.gaussian, p.mu)).first;
  p.cost = times_cost(it->second, p.times);
  return p;
}

// Applies a prepared spec to a state (members of *this).
void accountant::record(const prepared& p, ledger_entry e) {
  record_engine(p);
  filter_.add(p.cost);
  entries_.push_back(std::move(e));
}

void accountant::record_engine(const prepared& p) {
  applications_ += p.times;
  if (p.identity) {
    id_applications_ += p.times;
    return;
  }
  if (p.gaussian) mu2_ += static_cast<double>(p.times) * p.mu * p.mu;
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [&](const incremental_pld::batch_item& b) { return b.key == p.key; });
  if (it == pending_.end()) {
    pending_.push_back({p.key, p.law, p.times, p.garble});
    spans_.push_back(p.span);
  } else {
    // Identical guarantees are composed as one group (a power of one
    // transform), whose count the engine takes up to 1e12: checked here, at
    // add, so that a saved ledger always loads (a total above it was saved
    // once and then refused by every later command).
    if (it->n > kMaxGroupCount - p.times) {
      throw std::invalid_argument("ledger: this entry would bring the applications of '" + p.key +
                                  "' to " + std::to_string(it->n) + " + " +
                                  std::to_string(p.times) +
                                  ", above the limit of 1e12 per guarantee");
    }
    it->n += p.times;
  }
  if (p.gaussian && all_gaussian_) return;  // exact; the engine is not needed yet
  if (engine_pending_) return;              // batched, counts included, when first needed
  const std::size_t groups_before = pld_.groups();
  if (all_gaussian_) {
    // the first non-Gaussian guarantee: every group joins the engine
    all_gaussian_ = false;
    if (auto_grid_) {
      const double h = resolution_step(pld_.h());
      if (pld_.h() > 1.5 * h) pld_ = incremental_pld(h, window_, engine_cut(delta_));
    }
    pld_.add_batch(pending_);
  } else {
    pld_.add(p.key, p.law, p.times, p.garble);
  }
  // one step of the background rebuild, unless this add already paid for a
  // discretization (a new group)
  advance_rebuild(pld_.groups() == groups_before ? 1 : 0);
  refine_if_needed();
  // A rebuild with at most one group left is as cheap as a new group: finish
  // it now (a ledger of one large entry gets its tolerance at once; the
  // accuracy check may ask for a finer grid again, up to 4 times as before).
  for (int k = 0; k < 4 && next_ && pending_.size() - next_->done <= 1; ++k) {
    finish_rebuild();
    refine_if_needed();
  }
}

// The grid step that resolves every group's loss spread (as compose.hpp sizes
// its grid, so that the discretization error stays second order), or h if h
// already does.
double accountant::resolution_step(double h) const {
  double target = h;
  for (const auto& it : pending_) {
    const double s = it.law->scale();
    if (s > 0) target = std::min(target, std::max(1e-4, 0.3 * s));
  }
  if (h > 1.5 * target) {
    // prefer a step that puts the atoms of Laplace / f_{eps,delta} groups on the
    // grid (both discretizations are then exact for them): h = s/k for the
    // smallest span s, the k >= s/target aligning the most groups
    double smin = 0.0;
    for (double sp : spans_)
      if (sp > 0 && (smin == 0 || sp < smin)) smin = sp;
    if (smin > 0) {
      const double k0 = std::ceil(smin / target);
      int best = -1;
      double besth = target;
      for (int j = 0; j < 40; ++j) {
        const double hh = smin / (k0 + j);
        int score = 0;
        for (double sp : spans_) {
          if (!(sp > 0)) continue;
          const double r = sp / hh;
          if (std::fabs(r - std::round(r)) <= 1e-9 * r) ++score;
        }
        if (score > best) {
          best = score;
          besth = hh;
        }
      }
      target = besth;
    }
  }
  return target;
}

void accountant::refine_if_needed() {
  if (!auto_grid_ || all_gaussian_) return;
  // the grid the background rebuild (if any) will give
  const double h_next = next_ ? next_->eng.h() : pld_.h();
  const double target = resolution_step(h_next);
  if (h_next > 1.5 * target) {
    start_rebuild(target, window_);
    return;
  }
  // Room: rebuild with a larger FFT before the composed window outgrows it
  // (pld_ would otherwise re-plan inside an add, recomputing every transform).
  const double room = static_cast<double>(pld_.fft_size()) * pld_.h();
  if (!next_ && pld_.needed_window() > 0.6 * room) {
    start_rebuild(pld_.h(), 2.0 * pld_.needed_window());
    return;
  }
  if (delta_ == 0) return;  // (a pure-DP ledger's answers do not come from the engine)
  // Accuracy: start a finer grid when the bracket passes 70% of the tolerance,
  // so that it is ready before the tolerance is exceeded.
  const interval e = pld_.epsilon(delta_);
  if (!std::isfinite(e.upper)) return;
  // relative to what is spent, but never finer than a tenth of the budget asks
  const double w = (e.upper - e.lower) / std::max(e.upper, 0.1 * eps_);
  if (w <= 0.7 * tolerance_ || pld_.h() <= 1e-5) return;
  const double factor = std::clamp(0.8 * std::sqrt(tolerance_ / w), 0.1, 0.7);
  const double h = std::max(1e-5, pld_.h() * factor);
  if (next_ && next_->eng.h() <= 1.2 * h) return;  // a fine enough grid is on its way
  start_rebuild(h, window_);
}

void accountant::start_rebuild(double h, double window) {
  const double need =
      2.0 * std::max(pld_.needed_window(), next_ ? next_->eng.needed_window() : 0.0);
  auto r = std::make_shared<rebuild>(
      rebuild{incremental_pld(h, std::max(window, need), engine_cut(delta_)), 0, {}});
  if (pld_.both_orders())
    r->eng.use_both_orders();  // no re-plan later when an asymmetric group arrives
  next_ = std::move(r);        // the work starts at the next add
}

void accountant::advance_rebuild(std::size_t steps) {
  if (!next_) return;
  if (next_.use_count() > 1) next_ = std::make_shared<rebuild>(*next_);  // copy on write
  rebuild* r = next_.get();
  // counts recorded since a group joined the new engine
  for (std::size_t i = 0; i < r->done; ++i) {
    if (pending_[i].n != r->counts[i]) {
      r->eng.add(pending_[i].key, pending_[i].law, pending_[i].n - r->counts[i],
                 pending_[i].garble);
      r->counts[i] = pending_[i].n;
    }
  }
  for (std::size_t k = 0; k < steps && r->done < pending_.size(); ++k) {
    const auto& it = pending_[r->done];
    // two steps per group: its discretization, then its transforms and product
    if (!r->eng.prepared(it.key)) {
      r->eng.prepare(it.key, it.law, it.garble);
      continue;
    }
    r->eng.add(it.key, it.law, it.n, it.garble);
    r->counts.push_back(it.n);
    ++r->done;
  }
  if (r->done == pending_.size()) {
    pld_ = std::move(r->eng);
    next_.reset();
    ++regrids_;
  }
}

void accountant::add_unchecked(const std::string& spec) {
  const prepared p = prepare(spec, nullptr);
  record(p, ledger_entry{spec, "", utc_now(), p.points});
}

namespace {
interval gaussian_eps(double mu2, double delta) {
  const double e = gdp_eps(std::sqrt(mu2), delta);
  return {e, e};
}
}  // namespace

void accountant::ensure_engine() const {
  if (!engine_pending_) return;
  pld_.add_batch(pending_);
  engine_pending_ = false;
}

interval accountant::spent(double delta) const {
  detail::require(delta >= 0 && delta < 1, "accountant::spent", "delta", delta,
                  "must be in [0, 1)");
  // pure DP entries: the largest composed loss is the sum of the largest ones
  if (delta == 0) return {filter_.pure_sum(), filter_.pure_sum()};
  if (all_gaussian_) return gaussian_eps(mu2_, delta);
  ensure_engine();
  return pld_.epsilon(delta);
}

interval accountant::plan_spent() const {
  if (delta_ == 0 || all_gaussian_) return spent();  // (closed forms)
  // equal specs as one with their repetitions summed, as the engine groups them
  std::vector<spec> specs;
  std::map<std::pair<std::string, std::map<std::string, std::string>>, std::size_t> where;
  for (const auto& e : entries_) {
    if (!e.points.empty()) return spent();  // (the stored points, not today's file)
    spec s = parse_spec(e.spec);
    const auto [it, fresh] = where.emplace(std::make_pair(s.name, s.params), specs.size());
    if (fresh)
      specs.push_back(std::move(s));
    else
      specs[it->second].times += s.times;
  }
  compose_options o;
  o.tolerance = std::min(o.tolerance, tolerance_);
  try {
    return compose_for_queries(specs, o, {delta_}, {}).for_epsilons.epsilon(delta_);
  } catch (const evaluation_error&) {
    return spent();  // (beyond the one-shot path's limits: the engine answers)
  }
}

interval accountant::spent_delta(double eps) const {
  detail::require(std::isfinite(eps), "accountant::spent_delta", "eps", eps, "must be finite");
  if (all_gaussian_) {
    const double d = mu2_ > 0 ? gdp_delta(std::sqrt(mu2_), eps) : std::max(0.0, -std::expm1(eps));
    return {d, d};
  }
  ensure_engine();
  return pld_.delta(eps);
}

// A copy of everything but the (possibly long) log of entries.
accountant accountant::engine_copy() const {
  struct restore {
    std::vector<ledger_entry>& a;
    std::vector<ledger_entry>& b;
    ~restore() { a.swap(b); }
  };
  std::vector<ledger_entry> held;
  held.swap(entries_);
  restore r{entries_, held};
  return *this;
}

// The mass at infinite privacy loss of the recorded guarantees (with `extra`
// added), in the worse of the two orientations: 1 - prod (1 - m_g)^{n_g}
// (f_{eps,delta}: m = delta). delta(eps) >= it for every eps, so once it
// exceeds a budget's delta no finite epsilon fits, whatever the grid; the
// check needs no composition (which, for f_{1,1e-5} x 1e8, would ask the
// engine for a window of 4e8 points and fail).
double accountant::infinite_loss_mass(const prepared* extra) const {
  double log_keep_q = 0.0, log_keep_p = 0.0;
  auto take = [&](const loss_law& law, std::int64_t n) {
    const double nn = static_cast<double>(n);
    log_keep_q += nn * std::log1p(-std::min(1.0, law.q_pos_inf()));
    log_keep_p += nn * std::log1p(-std::min(1.0, law.p_neg_inf()));
  };
  for (const auto& g : pending_)
    if (g.law) take(*g.law, g.n);
  if (extra && extra->law && !extra->identity) take(*extra->law, extra->times);
  return -std::expm1(std::min(log_keep_q, log_keep_p));
}

double accountant::infinite_loss_mass(const std::string& spec) const {
  if (spec.empty()) return infinite_loss_mass(nullptr);
  const prepared p = prepare(spec, nullptr);
  return infinite_loss_mass(&p);
}

double accountant::infinite_loss_mass_rel(const prepared* extra) const {
  // one log1p (2 u) per group and orientation, their sum (u per addition),
  // expm1 (2 u; -expm1(L) moves by at most L's relative error): 2 u (10 +
  // groups), doubled, and never below the 1e-12 this check always kept
  const double groups = static_cast<double>(pending_.size()) + (extra ? 1.0 : 0.0);
  const double u = std::numeric_limits<double>::epsilon() / 2;
  return std::max(1e-12, 4.0 * u * (10.0 + groups));
}

bool accountant::no_finite_epsilon(const prepared& p, double delta) const {
  return infinite_loss_mass(&p) * (1 - infinite_loss_mass_rel(&p)) > delta;
}

bool accountant::no_finite_epsilon(const std::string& spec, double delta) const {
  return no_finite_epsilon(prepare(spec, nullptr), delta);
}

void accountant::validate(const std::string& spec) const { (void)prepare(spec, nullptr); }

bool accountant::can_afford(const std::string& spec) const {
  if (!by_filter()) return can_afford(spec, eps_, delta_);
  const prepared p = prepare(spec, nullptr);
  return !no_finite_epsilon(p, delta_) && filter_.admits(p.cost);
}

filter_level accountant::filter_with(const std::string& spec) const {
  return filter_.level_with(prepare(spec, nullptr).cost);
}

bool accountant::can_afford(const std::string& spec, double eps, double delta) const {
  detail::require(std::isfinite(eps) && eps > 0, "accountant::can_afford", "eps", eps,
                  "must be finite and > 0");
  detail::require(delta > 0 && delta < 1, "accountant::can_afford", "delta", delta,
                  "must be in (0, 1)");
  const prepared p = prepare(spec, nullptr);
  if (no_finite_epsilon(p, delta)) return false;
  ensure_engine();  // (once here, not in every trial copy)
  accountant trial = engine_copy();
  trial.record_engine(p);
  if (trial.spent(delta).upper <= eps) return true;
  if (!trial.next_) return false;
  trial.finish_rebuild();  // the finer grid may fit where the coarse one does not
  return trial.spent(delta).upper <= eps;
}

// Throws budget_exceeded: what the mode's rule has certified so far (plan:
// the composition's bracket; adaptive and pure-DP: the filter's epsilon) and
// why the entry does not fit.
void accountant::refuse(const std::string& spec, const std::string& why, double requested) const {
  const interval now =
      by_filter() ? interval{filter_.level().epsilon, filter_.level().epsilon} : spent(delta_);
  const std::string what = by_filter()
                               ? "the " + ledger_mode_name(mode_) + " filter's epsilon is " +
                                     detail::format_computed(now.upper)
                               : "spent epsilon in [" + detail::format_computed(now.lower) + ", " +
                                     detail::format_computed(now.upper) + "]";
  throw budget_exceeded("over budget: " + what + " at delta = " + detail::format_value(delta_) +
                            " (budget epsilon " + detail::format_value(eps_) + "); adding '" +
                            spec + "' would " + why + "; nothing was recorded",
                        now, requested);
}

void accountant::add(const std::string& spec, const std::string& label) {
  check_label(label);
  const prepared p = prepare(spec, nullptr);
  if (no_finite_epsilon(p, delta_)) {
    refuse(spec,
           "put probability " + detail::format_computed(infinite_loss_mass(&p)) +
               " on infinite privacy loss, above the budget's delta, so no finite epsilon holds",
           std::numeric_limits<double>::infinity());
  }
  // adaptive (and pure-DP) ledgers: the filter decides (privacy_filter.hpp)
  if (by_filter()) {
    const filter_level after = filter_.level_with(p.cost);
    if (!(after.epsilon <= eps_)) {
      const std::string how =
          std::isfinite(after.epsilon)
              ? "make the filter's epsilon " + detail::format_computed(after.epsilon) + " > " +
                    detail::format_value(eps_)
          : countable_adaptively(p.cost)
              ? std::string("leave no valid filter for this ledger's entries at its delta")
              : std::string(
                    "leave no valid filter: it has no form the adaptive filters count "
                    "(pure DP, GDP, RDP or a stated (eps, delta)); a sequence fixed in "
                    "advance can go in a plan ledger (ledger init --mode plan)");
      refuse(spec, how, after.epsilon);
    }
  }
  commit(p, ledger_entry{spec, label, utc_now(), p.points}, !by_filter());
}

// Records an admitted entry (the engine's plan composition included);
// check_plan: refuse it when the plan rule's certified epsilon exceeds the budget.
void accountant::commit(const prepared& p, ledger_entry e, bool check_plan) {
  // The trial takes over the background rebuild (advanced in place, not
  // copied); if the mechanism is refused, the rebuild is dropped with the
  // trial (it restarts at a later add).
  // (the plan rule needs the engine; the filter's ledgers leave it unbuilt
  // after a load, and a later status composes in one shot: plan_spent)
  if (check_plan) ensure_engine();
  std::shared_ptr<rebuild> held = std::move(next_);
  accountant trial = engine_copy();
  trial.next_ = std::move(held);
  try {
    trial.record_engine(p);
  } catch (const evaluation_error& err) {
    // (the engine's limits, e.g. a composed window beyond 2^26 points: the
    // ledger is unchanged, and says so)
    throw evaluation_error(std::string(err.what()) + "; '" + e.spec + "' was not recorded");
  }
  if (check_plan) {
    interval after = trial.spent(delta_);
    if (!(after.upper <= eps_) && trial.next_) {
      trial.finish_rebuild();  // the finer grid may fit where the coarse one does not
      after = trial.spent(delta_);
    }
    if (!(after.upper <= eps_)) {
      refuse(e.spec,
             "make the certified epsilon <= " + detail::format_value(after.upper) + " > " +
                 detail::format_value(eps_),
             after.upper);
    }
  }
  trial.filter_.add(p.cost);
  trial.entries_ = std::move(entries_);
  trial.entries_.push_back(std::move(e));
  *this = std::move(trial);
}

// ------------------------------------------------------------------ persistence

// The document without its tag, in the layout of `version` (a version 1 file
// is verified against its own layout; saves write the current one).
std::string accountant::canonical_body(int version) const {
  std::string o = "{\n  \"format\": ";
  detail::write_json_string(o, kFormat);
  o += ",\n  \"version\": " + std::to_string(version);
  if (version >= 2) {
    o += ",\n  \"mode\": ";
    detail::write_json_string(o, ledger_mode_name(mode_));
  }
  o += ",\n  \"budget\": {\"epsilon\": " + num17(eps_) + ", \"delta\": " + num17(delta_) + "}";
  o += ",\n  \"grid\": {\"step\": " + num17(pld_.h()) +
       ", \"auto\": " + (auto_grid_ ? "true" : "false") + ", \"tolerance\": " + num17(tolerance_) +
       "}";
  o += ",\n  \"entries\": [";
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    o += i ? ",\n    {\"spec\": " : "\n    {\"spec\": ";
    detail::write_json_string(o, entries_[i].spec);
    if (version >= 2) {
      o += ", \"label\": ";
      detail::write_json_string(o, entries_[i].label);
      o += ", \"time\": ";
      detail::write_json_string(o, entries_[i].time);
    }
    if (!entries_[i].points.empty()) {
      o += ", \"points\": [";
      for (std::size_t k = 0; k < entries_[i].points.size(); ++k) {
        if (k) o += ", ";
        o += "[" + num17(entries_[i].points[k].first) + ", " + num17(entries_[i].points[k].second) +
             "]";
      }
      o += "]";
    }
    o += "}";
  }
  o += entries_.empty() ? "]" : "\n  ]";
  return o;
}

std::string accountant::to_json(const std::string& key) const {
  const std::string body = canonical_body(kVersion);
  const std::string tag = key.empty() ? "sha256:" + detail::sha256_hex(body)
                                      : "hmac-sha256:" + detail::hmac_sha256_hex(key, body);
  return body + ",\n  \"checksum\": \"" + tag + "\"\n}\n";
}

namespace {

using jkind = detail::jvalue::kind;

// Reads the fields of a ledger document; every error names the source
// (the file) and says what is wrong.
class ledger_reader {
 public:
  explicit ledger_reader(std::string source) : source_(std::move(source)) {}

  std::invalid_argument bad(const std::string& what) const {
    return std::invalid_argument(source_ + ": " + what);
  }

  const detail::jvalue& field(const detail::jvalue& o, const char* key, jkind kind,
                              const std::string& where) const {
    const detail::jvalue* v = o.find(key);
    if (!v) throw bad("not a valid ledger: missing \"" + std::string(key) + "\"" + where);
    if (v->k != kind)
      throw bad("not a valid ledger: \"" + std::string(key) + "\" has the wrong type" + where);
    return *v;
  }

  // The JSON document, checked to be an object with the known top-level
  // fields only, of this format and version.
  detail::jvalue document(const std::string& text) const {
    detail::jvalue doc;
    try {
      doc = detail::parse_json(text);
    } catch (const std::invalid_argument& e) {
      throw bad(std::string("not a valid ledger (truncated or corrupt): ") + e.what());
    }
    if (doc.k != jkind::object) throw bad("not a valid ledger: the document is not a JSON object");
    for (const auto& kv : doc.obj) {
      static const char* known[] = {"format", "version", "mode",    "budget",
                                    "grid",   "entries", "checksum"};
      if (std::none_of(std::begin(known), std::end(known),
                       [&](const char* k) { return kv.first == k; })) {
        throw bad("not a valid ledger: unexpected field \"" + kv.first + "\"");
      }
    }
    if (field(doc, "format", jkind::string, "").str != kFormat)
      throw bad("not an fdp ledger (format is not \"fdp-ledger\")");
    const double version = field(doc, "version", jkind::number, "").num;
    if (version != 1 && version != kVersion) {
      throw bad("ledger version " + detail::format_value(version) +
                " is not supported (this fdp reads versions 1 and 2)");
    }
    if (version == 1 && doc.find("mode"))
      throw bad("not a valid ledger: unexpected field \"mode\" in version 1");
    return doc;
  }

  // Entry i (0-based) of "entries": its spec and its stored curve points.
  // Version 2 entries carry a label and a time.
  ledger_entry entry(const detail::jvalue& e, std::size_t i, int version) const {
    const std::string where = " in entry " + std::to_string(i + 1);
    if (e.k != jkind::object)
      throw bad("not a valid ledger: entry " + std::to_string(i + 1) + " is not an object");
    ledger_entry le;
    le.spec = field(e, "spec", jkind::string, where).str;
    if (version >= 2) {
      le.label = field(e, "label", jkind::string, where).str;
      le.time = field(e, "time", jkind::string, where).str;
    }
    for (const auto& kv : e.obj) {
      const bool v2 = version >= 2 && (kv.first == "label" || kv.first == "time");
      if (kv.first != "spec" && kv.first != "points" && !v2)
        throw bad("not a valid ledger: unexpected field \"" + kv.first + "\"" + where);
    }
    if (const auto* pts = e.find("points")) {
      if (pts->k != jkind::array)
        throw bad("not a valid ledger: \"points\" is not an array" + where);
      for (const auto& xy : pts->arr) {
        if (xy.k != jkind::array || xy.arr.size() != 2 || xy.arr[0].k != jkind::number ||
            xy.arr[1].k != jkind::number) {
          throw bad("not a valid ledger: a point is not [alpha, beta]" + where);
        }
        le.points.emplace_back(xy.arr[0].num, xy.arr[1].num);
      }
    }
    return le;
  }

 private:
  std::string source_;
};

// The budget, the grid and the checksum of a ledger document (read in
// this order, so that the first problem found is the one reported).
struct ledger_header {
  int version = 0;
  ledger_mode mode = ledger_mode::plan;  // version 1: its entries were admitted by the plan rule
  double eps = 0.0, delta = 0.0, step = 0.0, tolerance = 0.0;
  bool grid_auto = false;
  const detail::jvalue* entries = nullptr;
  std::string checksum;
};

ledger_header read_header(const ledger_reader& r, const detail::jvalue& doc) {
  ledger_header h;
  h.version = static_cast<int>(doc.find("version")->num);
  if (h.version >= 2) {
    const std::string m = r.field(doc, "mode", jkind::string, "").str;
    if (m != "plan" && m != "adaptive")
      throw r.bad("not a valid ledger: \"mode\" is \"" + m.substr(0, 40) +
                  "\" (allowed: \"plan\", \"adaptive\")");
    h.mode = m == "plan" ? ledger_mode::plan : ledger_mode::adaptive;
  }
  const auto& budget = r.field(doc, "budget", jkind::object, "");
  h.eps = r.field(budget, "epsilon", jkind::number, " in \"budget\"").num;
  h.delta = r.field(budget, "delta", jkind::number, " in \"budget\"").num;
  const auto& grid = r.field(doc, "grid", jkind::object, "");
  h.step = r.field(grid, "step", jkind::number, " in \"grid\"").num;
  h.grid_auto = r.field(grid, "auto", jkind::boolean, " in \"grid\"").b;
  h.tolerance = r.field(grid, "tolerance", jkind::number, " in \"grid\"").num;
  h.entries = &r.field(doc, "entries", jkind::array, "");
  h.checksum = r.field(doc, "checksum", jkind::string, "").str;
  return h;
}

}  // namespace

namespace {
// Checks the stored tag of a document against its canonical body (see
// accountant::from_json) and says how far it can be trusted.
ledger_integrity verify_tag(const ledger_reader& r, const std::string& stored,
                            const std::string& body, const std::string& key) {
  const std::string hmac = "hmac-sha256:", sha = "sha256:";
  if (stored.compare(0, hmac.size(), hmac) == 0) {
    if (key.empty()) return ledger_integrity::hmac_unverified;
    if (!detail::digest_equal(stored.substr(hmac.size()), detail::hmac_sha256_hex(key, body))) {
      throw r.bad(
          "HMAC mismatch: the ledger was modified outside fdp, or the key is wrong; refusing to "
          "trust it");
    }
    return ledger_integrity::hmac_verified;
  }
  if (stored.compare(0, sha.size(), sha) != 0)
    throw r.bad("not a valid ledger: \"checksum\" is neither sha256:... nor hmac-sha256:...");
  if (!key.empty()) {
    throw r.bad(
        "not signed: the ledger carries a plain SHA-256 checksum, which anyone can recompute, "
        "but a key was given; refusing to trust it");
  }
  const std::string expect = sha + detail::sha256_hex(body);
  if (stored != expect) {
    throw r.bad(
        "checksum mismatch: the ledger was modified outside fdp or is corrupt; refusing to "
        "trust it (stored " +
        stored.substr(0, 23) + "..., content gives " + expect.substr(0, 23) + "...)");
  }
  return ledger_integrity::checksum;
}
}  // namespace

accountant accountant::from_json(const std::string& text, const std::string& source,
                                 const std::string& key) {
  const ledger_reader r(source);
  const detail::jvalue doc = r.document(text);
  const ledger_header h = read_header(r, doc);
  accountant_options opt;
  opt.grid_step = h.step;  // the saved grid, so that a reload reproduces the answers
  opt.tolerance = h.tolerance;
  opt.mode = h.mode;
  accountant a = [&] {
    try {
      return accountant(h.eps, h.delta, opt);
    } catch (const std::invalid_argument& e) {
      throw r.bad(std::string("not a valid ledger: ") + e.what());
    }
  }();
  a.auto_grid_ = h.grid_auto;
  std::vector<ledger_entry> list;
  for (std::size_t i = 0; i < h.entries->arr.size(); ++i)
    list.push_back(r.entry(h.entries->arr[i], i, h.version));
  a.entries_ = list;  // for the tag of exactly what was read
  a.integrity_ = verify_tag(r, h.checksum, a.canonical_body(h.version), key);
  a.loaded_version_ = h.version;
  a.entries_.clear();
  a.replay(list, [&](std::size_t i, const std::string& what) {
    return r.bad("entry " + std::to_string(i) + ": " + what);
  });
  return a;
}

void accountant::replay(
    const std::vector<ledger_entry>& list,
    const std::function<std::invalid_argument(std::size_t, const std::string&)>& entry_error) {
  std::map<std::string, std::size_t> where;
  std::vector<incremental_pld::batch_item> items;
  for (std::size_t i = 0; i < list.size(); ++i) {
    prepared p;
    try {
      p = prepare(list[i].spec, &list[i]);
    } catch (const std::invalid_argument& e) {
      throw entry_error(i + 1, e.what());
    }
    applications_ += p.times;
    filter_.add(p.cost);
    if (p.identity) {
      id_applications_ += p.times;
    } else {
      if (p.gaussian)
        mu2_ += static_cast<double>(p.times) * p.mu * p.mu;
      else
        all_gaussian_ = false;
      auto it = where.find(p.key);
      if (it == where.end()) {
        where[p.key] = items.size();
        items.push_back({p.key, p.law, p.times, p.garble});
        spans_.push_back(p.span);
      } else {
        if (items[it->second].n > kMaxGroupCount - p.times) {
          throw entry_error(i + 1, "the applications of '" + p.key +
                                       "' add up to more than 1e12 (the limit per guarantee)");
        }
        items[it->second].n += p.times;
      }
    }
    entries_.push_back(list[i]);
  }
  pending_ = items;
  // the engine is built when first needed (ensure_engine)
  engine_pending_ = !all_gaussian_ && !items.empty();
}

ledger_lock::ledger_lock(const std::string& ledger_path)
    : fd_(detail::lock_ledger(ledger_path)),
      removed_(detail::remove_stale_temporaries(ledger_path)) {}

ledger_lock::~ledger_lock() { detail::unlock_ledger(fd_); }

void accountant::save(const std::string& path, const std::string& key) const {
  const std::string doc = to_json(key);
  // A ledger that load() would refuse is not written (the old one stays).
  if (doc.size() > kMaxLedgerBytes) {
    throw std::invalid_argument("ledger file '" + path + "': the ledger would be " +
                                std::to_string(doc.size()) + " bytes, more than the limit of " +
                                std::to_string(kMaxLedgerBytes) + " bytes; nothing was saved");
  }
  detail::atomic_write(path, doc);
}

accountant accountant::load(const std::string& path, const std::string& key) {
  return from_json(detail::read_file(path), "ledger file '" + path + "'", key);
}

interval accountant::rule_epsilon(const interval& plan) const {
  if (mode_ == ledger_mode::plan && delta_ > 0) return plan;
  const double f = filter().epsilon;
  return {f, f};
}

interval accountant::rule_epsilon_with(const std::vector<std::string>& specs) const {
  accountant trial = *this;
  for (const auto& s : specs) validate(s);
  for (const auto& s : specs) {
    if (trial.no_finite_epsilon(s, delta_)) {
      const double inf = std::numeric_limits<double>::infinity();
      return {inf, inf};
    }
    trial.add_unchecked(s);
  }
  // (plan: the engine's bracket, as add decides by it)
  return trial.rule_epsilon(trial.mode() == ledger_mode::plan ? trial.spent() : interval{});
}

}  // namespace fdp
