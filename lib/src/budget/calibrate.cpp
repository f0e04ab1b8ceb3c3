#include "fdp/budget/calibrate.hpp"

#include <algorithm>
#include <boost/math/tools/toms748_solve.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

#include "fdp/core/error.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The shortest decimal that reads back exactly: spec texts and messages
// show q=0.01024, not q=0.010240000000000001.
std::string fmt_exact(double x) { return detail::format_value(x); }

// A computed epsilon in a message: 10 significant digits.
std::string fmt_computed(double x) { return detail::format_computed(x); }

struct evaluation {
  interval eps;
  double tolerance;
};

// The table's entry for a calibratable parameter (nullptr if there is none).
const calibration_param* calibration_param_of(const std::string& name, const std::string& param) {
  if (const spec_kind* k = find_spec_kind(name))
    for (const auto& c : k->calibration)
      if (c.key == param) return &c;
  return nullptr;
}

// The family of a spec text with one parameter left out: the spec at x
// composed with the fixed others; direction, range and start from the
// parameter's entry in the spec table (fdp/ops/spec_kind.hpp).
calibration_family spec_family(const std::string& text, const std::string& param, double target,
                               double delta, const std::vector<std::string>& others) {
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const std::string rest = colon == std::string::npos ? std::string() : text.substr(colon + 1);
  const auto allowed = calibratable_params(name);
  if (allowed.empty()) {
    // parse_spec names the known spec kinds in its message
    parse_spec(text);
    throw std::invalid_argument("calibrate(spec='" + text + "'): spec '" + name +
                                "' has no parameter to calibrate");
  }
  if (std::find(allowed.begin(), allowed.end(), param) == allowed.end()) {
    std::string list;
    for (const auto& p : allowed) list += (list.empty() ? "" : ", ") + p;
    throw std::invalid_argument("calibrate(param='" + param + "'): spec '" + name +
                                "' can be calibrated in: " + list);
  }
  // the spec must leave the parameter out
  std::stringstream ss(rest);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.substr(0, item.find('=')) == param) {
      throw std::invalid_argument("calibrate(spec='" + text + "'): the spec already sets '" +
                                  param + "'; leave it out to solve for it");
    }
  }
  const calibration_param* def = calibration_param_of(name, param);
  calibration_family f;
  f.param = param;
  f.integer = param == "times";
  f.smallest = def->smallest;
  f.lo = def->lo;
  f.hi = def->hi;
  f.first_step = def->first_step;
  for (const auto& o : others) f.limit.push_back(parse_spec(o));
  auto text_at = [name, rest, param, integer = f.integer](double x) {
    const std::string v = integer ? std::to_string(static_cast<long long>(x)) : fmt_exact(x);
    return name + ":" + rest + (rest.empty() ? "" : ",") + param + "=" + v;
  };
  f.specs_at = [text_at, fixed = f.limit](double x) {
    std::vector<spec> specs{parse_spec(text_at(x))};
    specs.insert(specs.end(), fixed.begin(), fixed.end());
    return specs;
  };
  // A rough start from GDP / the CLT (only a starting point; never trusted):
  // the kind's, from the spec with the parameter set to 1.
  const double mu = std::max(1e-6, std::min(50.0, gdp_mu(target, delta)));
  const spec probe = [&] {
    try {
      return parse_spec(text_at(1.0));
    } catch (const std::invalid_argument&) {
      return spec{};
    }
  }();
  f.start = def->start ? def->start(probe, mu) : 1.0;
  // validate the rest of the spec once (unknown keys, bad numbers)
  make_term(parse_spec(text_at(f.start)));
  return f;
}

class calibrator {
 public:
  calibrator(const calibration_family& family, double target, double delta,
             const calibration_options& opt)
      : family_(family), param_(family.param), target_(target), delta_(delta), opt_(opt) {
    integer_ = family.integer;
    smallest_ = family.smallest;
    upper_limit_ = family.hi;
    lower_limit_ = family.lo;
  }

  double start_value() const { return family_.start; }

  evaluation eval(double x, double tol) {
    auto it = cache_.find(x);
    if (it != cache_.end() && it->second.tolerance <= tol) return it->second;
    if (evaluations_ >= opt_.max_evaluations) {
      throw evaluation_error("calibrate: no convergence within " +
                             std::to_string(opt_.max_evaluations) + " evaluations");
    }
    ++evaluations_;
    const std::vector<spec> specs = family_.specs_at(x);
    compose_options co;
    co.tolerance = tol;
    co.delta_hint = std::max(delta_, 1e-300);
    evaluation e{{0.0, kInf}, tol};
    try {
      e.eps = compose(specs, co).epsilon(delta_);
    } catch (const evaluation_error&) {
      // the engine could not resolve this point (e.g. a grid beyond its
      // limit): nothing is certified here
      e.eps = {0.0, kInf};
    }
    cache_[x] = e;
    if (opt_.trace) {
      char line[200];
      std::snprintf(line, sizeof line, "calibrate: %s=%.17g tol=%g eps=[%.17g, %.17g]",
                    param_.c_str(), x, tol, e.eps.lower, e.eps.upper);
      opt_.trace(line);
    }
    return e;
  }

  bool feasible(double x, double tol) { return eval(x, tol).eps.upper <= target_; }

  calibration_result run() {
    const auto t0 = std::chrono::steady_clock::now();
    calibration_result r;
    r.param = param_;
    r.smallest = smallest_;
    if (integer_)
      solve_integer(r);
    else
      solve_continuous(r);
    if (!integer_) meet_exactly(r);
    r.epsilon = cache_.at(r.value).eps;
    certify_gap(r);
    r.evaluations = evaluations_;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

 private:
  // ---- continuous parameters: work in y = log x
  // The limit where the solved spec contributes nothing (sigma, b -> inf;
  // q, mu, eps, sensitivity -> 0) is the composition of the other specs
  // alone: if that already misses the target, no value can meet it (adding a
  // mechanism never lowers epsilon), and the search would only wander into
  // extreme values.
  void check_limit() {
    if (family_.limit.empty()) return;
    compose_options co;
    co.tolerance = opt_.search_tolerance;
    co.delta_hint = std::max(delta_, 1e-300);
    const interval e = compose(family_.limit, co).epsilon(delta_);
    ++evaluations_;
    if (!(e.upper < target_)) {
      throw std::invalid_argument("calibrate: no value of " + param_ + " meets epsilon <= " +
                                  fmt_exact(target_) + " at delta = " + fmt_exact(delta_) +
                                  ": the other specs alone give a certified epsilon in [" +
                                  fmt_computed(e.lower) + ", " + fmt_computed(e.upper) + "]");
    }
  }

  // A bracket of the root: f feasible (U(f) <= target), g infeasible.
  struct root_bracket {
    double f = 0.0, g = 0.0;
  };
  // Where phase 0 puts the root (y = log x) and the slope dG/dy it measured.
  struct root_estimate {
    double y = 0.0, slope = 0.0;
  };

  void solve_continuous(calibration_result& r) {
    check_limit();
    double x = std::clamp(start_value(), lower_limit_, upper_limit_);
    if (!std::isfinite(x) || x <= 0) x = 1.0;
    root_bracket b;
    if (!bracket_from(x, r, b)) return;
    final_phase(illinois_phase(b, r), r);
  }

  // For Gaussian families the start (GDP / the CLT) is usually within a few
  // percent: probe close to it first and widen the step geometrically (1.04,
  // 1.08, 1.17, 1.37, 1.87, 2, 2, ...), so that a good start costs two
  // compositions; elsewhere the start is rough and the step is 2.
  static double widened(double step) { return std::min(2.0, step * step); }

  // Steps from x until a feasible and an infeasible point bracket the root.
  // false: the answer is already in r (the parameter's upper limit meets
  // the target).
  bool bracket_from(double x, calibration_result& r, root_bracket& b) {
    if (feasible(x, opt_.search_tolerance)) {
      b.f = x;
      return walk_to_infeasible(r, b);
    }
    b.g = x;
    walk_to_feasible(b);
    return true;
  }

  bool walk_to_infeasible(calibration_result& r, root_bracket& b) {
    for (double step = family_.first_step;; step = widened(step)) {
      const double nx = smallest_ ? b.f / step : std::min(upper_limit_, b.f * step);
      if (!smallest_ && b.f >= upper_limit_) {
        r.value = r.lo = r.hi = b.f;
        r.at_limit = true;
        return false;
      }
      if (smallest_ && nx < lower_limit_) {
        throw std::invalid_argument("calibrate: every " + param_ + " down to " +
                                    fmt_exact(lower_limit_) + " meets the target");
      }
      if (!feasible(nx, opt_.search_tolerance)) {
        b.g = nx;
        return true;
      }
      b.f = nx;
    }
  }

  void walk_to_feasible(root_bracket& b) {
    const double ts = opt_.search_tolerance;
    for (double step = family_.first_step;; step = widened(step)) {
      const double nx = smallest_ ? b.g * step : b.g / step;
      if (nx > upper_limit_ || nx < lower_limit_) {
        const interval e = eval(b.g, ts).eps;
        throw std::invalid_argument(
            "calibrate: no value of " + param_ + " meets epsilon <= " + fmt_exact(target_) +
            " at delta = " + fmt_exact(delta_) + " (at " + param_ + " = " + fmt_exact(b.g) +
            " the certified epsilon is still " + fmt_computed(e.upper) + ")");
      }
      if (feasible(nx, ts)) {
        b.f = nx;
        return;
      }
      b.g = nx;
    }
  }

  // Root finding on G(y) = log U(e^y) - log target (y = log x), with the
  // compositions at tolerance tol. Returned values are always evaluated
  // feasible points.
  auto log_ratio(double tol) {
    return [this, tol](double y) {
      const double u = eval(std::exp(y), tol).eps.upper;
      if (!(u > 0)) return -700.0;
      if (!std::isfinite(u)) return 700.0;
      return std::log(u) - std::log(target_);
    };
  }

  // Phase 0, search tolerance: regula falsi (Illinois) until |G| <= ts/2,
  // which is as close as compositions of that tolerance can tell; it also
  // measures the slope k = dG/dy.
  root_estimate illinois_phase(const root_bracket& b, calibration_result& r) {
    const double ts = opt_.search_tolerance;
    auto G = log_ratio(ts);
    double lf = std::log(b.f), lg = std::log(b.g);
    double gf = G(lf), gg = G(lg), wf = gf, wg = gg;  // w*: Illinois-weighted values
    int side = 0;
    for (int it = 0; it < 6; ++it) {
      if (!(wg - wf > 0)) break;
      const double y = lf + (lg - lf) * (-wf) / (wg - wf);
      if (!(y > std::min(lf, lg) && y < std::max(lf, lg))) break;
      const double gy = G(y);
      ++r.iterations;
      if (gy <= 0) {
        lf = y;
        gf = wf = gy;
        if (side == -1) wg *= 0.5;
        side = -1;
      } else {
        lg = y;
        gg = wg = gy;
        if (side == 1) wf *= 0.5;
        side = 1;
      }
      if (std::fabs(gy) <= 0.5 * ts) break;
    }
    root_estimate est;
    est.slope = (gg - gf) / (lg - lf);
    est.y = (gg - gf > 0) ? lf + (lg - lf) * (-gf) / (gg - gf) : lf;
    if (!std::isfinite(est.slope) || est.slope == 0.0) est.slope = smallest_ ? -1.0 : 1.0;
    return est;
  }

  // Two probes y1, y2 of G; a sign change between them brackets the root.
  struct probe_pair {
    double y1, g1, y2, g2;
    bool sign_change() const { return (g1 <= 0) != (g2 <= 0); }
  };

  // Newton steps with overshoot from the estimate until a fresh sign change.
  template <class F>
  probe_pair newton_until_sign_change(const F& G, const root_estimate& est) {
    probe_pair p;
    p.y1 = std::min(est.y, std::log(upper_limit_));
    p.g1 = G(p.y1);
    p.y2 = p.y1, p.g2 = p.g1;
    for (int it = 0; it < 12; ++it) {
      double step = -p.g1 / est.slope;
      step = 1.5 * step + (step >= 0 ? 2e-4 : -2e-4);
      if (p.g1 == 0)
        step = smallest_ ? -2e-4 : 2e-4;  // exactly at the target: probe the other side
      p.y2 = std::min(p.y1 + step, std::log(upper_limit_));
      p.g2 = G(p.y2);
      if (p.sign_change()) break;
      if (p.y2 == p.y1) break;
      p.y1 = p.y2;
      p.g1 = p.g2;
    }
    return p;
  }

  // Phase 1, final tolerance: one Newton step with overshoot from the
  // estimate gives a fresh sign change, then toms748 down to x_tolerance.
  void final_phase(const root_estimate& est, calibration_result& r) {
    const double tol = opt_.final_tolerance;
    auto G = log_ratio(tol);
    const probe_pair p = newton_until_sign_change(G, est);
    root_bracket b;
    if (!p.sign_change()) {
      // no sign change found (noise or a range limit): keep the best feasible point
      b.f = b.g = best_feasible(tol);
      if (!smallest_ && b.f >= upper_limit_) r.at_limit = true;
    } else {
      b.f = std::exp(p.g1 <= 0 ? p.y1 : p.y2);
      b.g = std::exp(p.g1 <= 0 ? p.y2 : p.y1);
      if (!certified_close(b, tol)) narrow_by_toms748(G, p, est.slope, r, b);
    }
    r.value = b.f;
    r.lo = std::min(b.f, b.g);
    r.hi = std::max(b.f, b.g);
  }

  // Done already when the infeasible end is CERTIFIED infeasible (its lower
  // bound exceeds the target) and within 0.9 gap_target of f: f is then
  // provably that close to the best value (numeric brackets only; exact
  // closed forms go on to x_tolerance).
  bool certified_close(const root_bracket& b, double tol) {
    const interval ef = eval(b.f, tol).eps;
    return ef.lower < ef.upper && eval(b.g, tol).eps.lower > target_ &&
           std::fabs(b.f / b.g - 1.0) <= 0.9 * opt_.gap_target;
  }

  template <class F>
  void narrow_by_toms748(const F& G, const probe_pair& p, double k, calibration_result& r,
                         root_bracket& b) {
    const double tol = opt_.final_tolerance;
    const double a = std::min(p.y1, p.y2), c = std::max(p.y1, p.y2);
    const double fa = G(a), fc = G(c);
    std::uintmax_t iters = 30;
    if (!(c - a > opt_.x_tolerance && fa * fc < 0)) return;
    // Also stop as soon as a feasible point is within x_tolerance of the
    // crossing by the measured slope (toms748 may keep a far end).
    double best_g = -kInf;
    auto Gt = [&](double y) {
      const double v = G(y);
      if (v <= 0) best_g = std::max(best_g, v);
      return v;
    };
    auto stop = [&](double u, double v) {
      return std::fabs(v - u) <= opt_.x_tolerance ||
             best_g >= -0.5 * opt_.x_tolerance * std::fabs(k);
    };
    const auto br = boost::math::tools::toms748_solve(Gt, a, c, fa, fc, stop, iters);
    r.iterations += static_cast<int>(iters);
    const double xa = std::exp(br.first), xb = std::exp(br.second);
    const bool fa_ok = feasible(xa, tol), fb_ok = feasible(xb, tol);
    if (fa_ok != fb_ok) {
      b.f = fa_ok ? xa : xb;
      b.g = fa_ok ? xb : xa;
    } else if (fa_ok) {
      b.f = smallest_ ? xa : xb;
    } else {
      b.g = smallest_ ? xb : xa;
    }
  }

  double best_feasible(double tol) {
    double best = smallest_ ? kInf : 0.0;
    for (const auto& [x, e] : cache_) {
      if (e.eps.upper <= target_) best = smallest_ ? std::min(best, x) : std::max(best, x);
    }
    if (!std::isfinite(best) || best <= 0) {
      throw evaluation_error("calibrate: lost the feasible end of the bracket");
    }
    return best;
  }

  // The root finder works on log U - log target, which is 0 in double for an
  // epsilon an ulp or two above the target: such a value was returned as
  // meeting it (gaussian, eps 0.1, delta 1e-10: 0.10000000000000003). The
  // returned value must itself be evaluated feasible: step it outwards by
  // 1, 2, 4, ... ulps until it is (else the best feasible point evaluated).
  void meet_exactly(calibration_result& r) {
    const double tol = opt_.final_tolerance;
    double x = r.value;
    double d = 1.0;
    for (int i = 0; i < 40 && !feasible(x, tol); ++i, d *= 2.0) {
      const double u = std::nextafter(x, smallest_ ? kInf : 0.0) - x;  // one ulp, signed
      x = std::clamp(r.value + d * u, lower_limit_, upper_limit_);
    }
    if (!feasible(x, tol)) x = best_feasible(tol);
    r.value = x;
    r.lo = std::min(r.lo, x);
    r.hi = std::max(r.hi, x);
  }

  // ---- times: the largest integer with U <= target
  void solve_integer(calibration_result& r) {
    const double tol = opt_.final_tolerance;
    double f = 1.0;
    if (!feasible(f, tol)) {
      const interval e = eval(1.0, tol).eps;
      throw std::invalid_argument("calibrate: even " + param_ + "=1 exceeds epsilon <= " +
                                  fmt_exact(target_) + " at delta = " + fmt_exact(delta_) +
                                  " (certified epsilon " + fmt_computed(e.upper) + ")");
    }
    // Bracket: f feasible, g not. Steps of at least 2x, larger while epsilon
    // is far below the target (about target / (2 epsilon): epsilon grows at
    // most about linearly in times at large counts, so the step stays
    // feasible or brackets the crossing either way); the last step lands on
    // the limit itself (doubling from 1 stopped at 2^39, short of 1e12; and a
    // target of 1e300 doubled through 40 ever larger compositions).
    double g = 2.0;
    for (;;) {
      const interval e = eval(g, tol).eps;
      if (!(e.upper <= target_)) break;
      f = g;
      if (g >= upper_limit_) {
        r.value = r.lo = r.hi = f;
        r.at_limit = true;
        return;
      }
      const double grow = e.upper > 0 ? std::clamp(0.5 * target_ / e.upper, 2.0, 1e6) : 1e6;
      g = std::min(upper_limit_, std::floor(g * grow));
    }
    while (g - f > 1.0) {
      const double m = std::floor(0.5 * (f + g));
      ++r.iterations;
      if (feasible(m, tol))
        f = m;
      else
        g = m;
    }
    r.value = f;
    r.lo = f;
    r.hi = g;
  }

  // The nearest evaluated point that is certainly infeasible (L > target).
  void certify_gap(calibration_result& r) {
    auto nearest = [&]() {
      double best = smallest_ ? 0.0 : kInf;
      for (const auto& [x, e] : cache_) {
        if (!(e.eps.lower > target_)) continue;
        if (smallest_ && x < r.value) best = std::max(best, x);
        if (!smallest_ && x > r.value) best = std::min(best, x);
      }
      return best;
    };
    auto gap = [&](double b) {
      if (!(b > 0) || !std::isfinite(b)) return kInf;
      if (integer_) return std::max(0.0, (b - 1.0) / r.value - 1.0);
      return std::fabs(r.value / b - 1.0);
    };
    if (r.at_limit) {
      r.certified_optimum_bound = r.value;
      r.certified_gap = 0.0;
      return;
    }
    double b = nearest();
    if (gap(b) > opt_.gap_target && !integer_) {
      // one probe just inside the target gap, at the final tolerance, then tighter
      const double x = smallest_ ? r.value / (1.0 + 0.6 * opt_.gap_target)
                                 : r.value * (1.0 + 0.6 * opt_.gap_target);
      for (double tol : {opt_.final_tolerance, opt_.final_tolerance / 4}) {
        if (evaluations_ >= opt_.max_evaluations) break;
        if (eval(x, tol).eps.lower > target_) break;
      }
      b = nearest();
    }
    r.certified_optimum_bound = b;
    r.certified_gap = gap(b);
  }

  calibration_family family_;
  std::string param_;
  double target_, delta_;
  calibration_options opt_;
  bool integer_ = false, smallest_ = true;
  double upper_limit_ = 1e12, lower_limit_ = 1e-12;
  std::map<double, evaluation> cache_;
  int evaluations_ = 0;
};

}  // namespace

std::vector<std::string> calibratable_params(const std::string& name) {
  std::vector<std::string> out;
  if (const spec_kind* k = find_spec_kind(name))
    for (const auto& c : k->calibration) out.push_back(c.key);
  return out;
}

calibration_result calibrate(const std::string& spec_text, const std::string& param,
                             double target_eps, double delta,
                             const std::vector<std::string>& others,
                             const calibration_options& opt) {
  detail::require(std::isfinite(target_eps) && target_eps > 0, "calibrate", "eps", target_eps,
                  "must be finite and > 0");
  detail::require(delta > 0 && delta < 1, "calibrate", "delta", delta, "must be in (0, 1)");
  return calibrate_family(spec_family(spec_text, param, target_eps, delta, others), target_eps,
                          delta, opt);
}

calibration_result calibrate_family(const calibration_family& family, double target_eps,
                                    double delta, const calibration_options& opt) {
  detail::require(std::isfinite(target_eps) && target_eps > 0, "calibrate", "eps", target_eps,
                  "must be finite and > 0");
  detail::require(delta > 0 && delta < 1, "calibrate", "delta", delta, "must be in (0, 1)");
  detail::require(family.lo > 0 && family.lo < family.hi, "calibrate", "lo", family.lo,
                  "must be in (0, hi)");
  detail::require(opt.final_tolerance > 0 && opt.final_tolerance < 0.1, "calibrate",
                  "final_tolerance", opt.final_tolerance, "must be in (0, 0.1)");
  if (!family.specs_at) throw std::invalid_argument("calibrate: the family has no specs_at");
  if (family.integer && family.smallest)
    throw std::invalid_argument("calibrate: integer parameters are solved for the largest value");
  calibrator c(family, target_eps, delta, opt);
  calibration_result r = c.run();
  r.specs = family.specs_at(r.value);
  return r;
}

}  // namespace fdp
