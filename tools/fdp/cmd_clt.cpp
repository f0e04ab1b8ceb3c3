// fdp clt: the CLT functionals of each spec, the CLT approximation mu and the
// Berry-Esseen band (DRS Thm 3.5), and the (eps, delta) limit (DRS Thm 3.6).
#include <iostream>
#include <optional>
#include <utility>
#include <variant>

#include "compose_common.hpp"
#include "fdp/budget/classic.hpp"
#include "fdp/core/tradeoff.hpp"
#include "fdp/ops/clt.hpp"
#include "fdp/core/error.hpp"
#include "fdp/ops/edgeworth.hpp"

namespace fdp::cli {
namespace {

json functionals_json(const clt_functionals& f) {
  json j;
  j["finite"] = f.finite;
  if (!f.finite) {
    j["reason"] = f.reason;
    for (const char* k : {"kl", "kappa2", "kappa3", "kappa3bar", "var"}) j[k] = nullptr;
    return j;
  }
  j["kl"] = num(f.kl);
  j["kappa2"] = num(f.kappa2);
  j["kappa3"] = num(f.kappa3);
  j["kappa3bar"] = num(f.kappa3bar);
  j["var"] = num(f.var);
  return j;
}

// Loss cumulants of one application of a spec, for the Edgeworth expansion
// (Zheng, Dong, Long & Su 2020): its kind's hook (fdp/ops/spec_kind.hpp).
// Kinds without one are refused, naming those that have one.
loss_cumulants edgeworth_cumulants(const spec& s) {
  if (const auto hook = s.kind().edgeworth) return hook(s);
  std::string with;
  for (const auto& k : spec_kinds())
    if (k.edgeworth) with += (with.empty() ? "" : ", ") + k.name;
  throw usage_error("--edgeworth: spec '" + s.text +
                    "' has no Edgeworth cumulants here (supported: " + with + ")");
}

// What the specs give the CLT and its neighbours, one term per spec.
struct clt_inputs {
  std::vector<clt_term> terms;
  json terms_json = json::array();
  /// Every spec is epsdelta: the (eps, delta) limit of DRS Thm 3.6 applies.
  bool all_eps_delta = true;
  std::vector<std::pair<eps_delta, std::int64_t>> eps_delta_terms;
  /// The composition's loss cumulants (with --edgeworth only).
  loss_cumulants cumulants;
};

json term_json(const clt_term& c, bool by_quadrature) {
  json j;
  j["spec"] = c.name;
  j["times"] = c.times;
  j["symmetric"] = c.symmetric;
  j["route"] = by_quadrature ? "numeric" : "closed";
  j.update(functionals_json(c.f));
  return j;
}

clt_inputs clt_inputs_of(const std::vector<spec>& specs, bool numeric, bool edgeworth) {
  clt_inputs in;
  for (const auto& s : specs) {
    const compose_term t = make_term(s);
    const bool by_quadrature = numeric || !t.closed;
    clt_term c;
    c.f = by_quadrature ? functionals_numeric(*t.law) : functionals(*t.closed);
    c.times = t.times;
    c.symmetric = t.closed ? is_symmetric(*t.closed) : t.law->symmetric();
    c.name = s.text;
    in.terms.push_back(c);
    if (edgeworth) in.cumulants = in.cumulants + times(edgeworth_cumulants(s), t.times);
    in.terms_json.push_back(term_json(c, by_quadrature));
    const eps_delta* e = t.closed ? std::get_if<eps_delta>(&t.closed->get()) : nullptr;
    if (e)
      in.eps_delta_terms.emplace_back(*e, t.times);
    else
      in.all_eps_delta = false;
  }
  return in;
}

bool all_functionals_finite(const std::vector<clt_term>& terms) {
  bool all_finite = true;
  for (const auto& t : terms) all_finite = all_finite && t.f.finite;
  return all_finite;
}

json totals_json(const clt_approximation& r, bool all_finite) {
  json tot;
  if (!all_finite) {
    for (const char* k : {"kl", "kl_sq", "kappa2", "kappa3", "kappa3bar", "var"}) tot[k] = nullptr;
    return tot;
  }
  tot["kl"] = num(r.kl_l1());
  tot["kl_sq"] = num(r.kl_l2sq());
  tot["kappa2"] = num(r.kappa2_l1());
  tot["kappa3"] = num(r.kappa3_l1());
  tot["kappa3bar"] = num(r.kappa3bar_l1());
  tot["var"] = num(r.var_l1());
  return tot;
}

// The CLT approximation and its Berry-Esseen band at each alpha.
void add_clt_json(json& out, const clt_approximation& r, const std::vector<double>& alphas) {
  out["applicable"] = r.applicable();
  if (!r.applicable()) out["reason"] = r.reason();
  out["mu"] = r.applicable() ? num(r.clt_mu()) : json(nullptr);
  out["gamma"] = r.applicable() ? num(r.gamma()) : json(nullptr);
  out["band_valid"] = r.band_valid();
  json jb = json::array();
  for (double al : alphas) {
    // {"alpha", "beta": the band (a bracket, null where none holds),
    // "estimate": the CLT's beta (an approximation)}
    const auto b = r.band(al);
    json x = query("alpha", al, "beta", b ? bracket(b->lower, b->upper) : json(nullptr));
    x["estimate"] = r.applicable() ? num(r.beta(al)) : json(nullptr);
    jb.push_back(x);
  }
  out["band"] = jb;
}

json eps_delta_limit_json(const clt_eps_delta_limit& lim, const std::vector<double>& alphas) {
  json l;
  l["mu"] = num(lim.mu());
  l["delta_sum"] = num(lim.delta_sum());
  l["d"] = num(lim.d());
  json lb = json::array();
  for (double al : alphas) lb.push_back(query("alpha", al, "beta", num(lim.beta(al))));
  l["beta"] = lb;
  return l;
}

// The Edgeworth expansion of f at each alpha: an approximation, not a
// bound. None where alpha is not in (0, 1) or the expansion does not cross
// it.
using edgeworth_values = std::vector<std::pair<double, std::optional<double>>>;

edgeworth_values edgeworth_betas(const loss_cumulants& cum, const std::vector<double>& alphas) {
  edgeworth_values ew;
  for (double al : alphas) {
    std::optional<double> v;
    if (al > 0 && al < 1) {
      try {
        v = edgeworth_beta(cum, al);
      } catch (const evaluation_error&) {
      }
    }
    ew.emplace_back(al, v);
  }
  return ew;
}

json edgeworth_json(const edgeworth_values& ew) {
  json je = json::array();
  for (const auto& [al, v] : ew)
    je.push_back(query("alpha", al, "beta", v ? num(*v) : json(nullptr)));
  return je;
}

void print_functionals(const std::vector<clt_term>& terms, const clt_approximation& r,
                       bool all_finite) {
  std::cout
      << "CLT functionals (per application; route closed = closed form, numeric = quadrature)\n";
  for (const auto& t : terms) {
    std::cout << "  " << t.name << "  x" << t.times << (t.symmetric ? "" : "  (asymmetric)")
              << "\n";
    if (!t.f.finite) {
      std::cout << "    infinite: " << t.f.reason << "\n";
      continue;
    }
    std::cout << "    kl = " << fmt(t.f.kl, 15) << "  kappa2 = " << fmt(t.f.kappa2, 15)
              << "  kappa3 = " << fmt(t.f.kappa3, 15) << "  kappa3bar = " << fmt(t.f.kappa3bar, 15)
              << "\n";
  }
  if (all_finite) {
    std::cout << "  total: ||kl||_1 = " << fmt(r.kl_l1(), 15)
              << "  ||kl||_2^2 = " << fmt(r.kl_l2sq(), 15)
              << "  ||kappa2||_1 = " << fmt(r.kappa2_l1(), 15)
              << "  ||kappa3bar||_1 = " << fmt(r.kappa3bar_l1(), 15) << "\n";
  }
}

void print_clt_band(const clt_approximation& r, const clt_estimate& limits,
                    const std::vector<double>& alphas) {
  if (!r.applicable()) {
    if (limits.applicable) {
      std::cout << "CLT approximation (an approximation, NOT a bound): clt_mu = "
                << fmt(limits.mu, 12)
                << "\n  from the terms' central limits (Bu, Dong, Long & Su 2020 for "
                   "Poisson-subsampled Gaussians: G_m with m^2 = q^2 (e^{(D/sigma)^2} - 1));\n"
                   "  no Berry-Esseen band: "
                << r.reason() << "\n";
      for (double al : alphas)
        std::cout << "  alpha=" << fmt(al) << ":  G_mu = " << fmt(beta(gaussian(limits.mu), al))
                  << "   band: n/a\n";
    } else {
      std::cout << "CLT not applicable: " << r.reason() << "\n";
    }
    return;
  }
  std::cout << "CLT approximation (an approximation, NOT a bound): clt_mu = " << fmt(r.clt_mu(), 12)
            << "\n";
  std::cout << "Berry-Esseen gamma = " << fmt(r.gamma(), 12)
            << (r.band_valid() ? "  (band valid for alpha in [gamma, 1 - gamma], DRS Thm 3.5)"
                               : "  (>= 1/2: no valid band)")
            << "\n";
  for (double al : alphas) {
    const auto b = r.band(al);
    std::cout << "  alpha=" << fmt(al) << ":  G_mu = " << fmt(r.beta(al));
    if (b)
      std::cout << "   band [" << fmt_down(b->lower) << ", " << fmt_up(b->upper) << "]\n";
    else
      std::cout << "   band: n/a (alpha outside [gamma, 1 - gamma] or gamma >= 1/2)\n";
  }
}

void print_edgeworth(const edgeworth_values& ew) {
  std::cout
      << "Edgeworth expansion (Zheng, Dong, Long & Su 2020; an approximation, NOT a bound):\n";
  for (const auto& [al, v] : ew) {
    std::cout << "  alpha=" << fmt(al) << ":  beta = ";
    if (v)
      std::cout << fmt(*v) << "\n";
    else
      std::cout << "n/a (alpha must be in (0, 1) and the expansion must cross it)\n";
  }
}

void print_eps_delta_limit(const clt_eps_delta_limit& lim, const std::vector<double>& alphas) {
  std::cout << "(eps, delta) limit (DRS Thm 3.6; an approximation): G_" << fmt(lim.mu(), 12)
            << " (x) f_{0," << fmt(lim.d(), 12) << "}\n";
  for (double al : alphas)
    std::cout << "  alpha=" << fmt(al) << ":  beta = " << fmt(lim.beta(al)) << "\n";
}

int run_clt(const args& a) {
  const auto specs = parse_specs(a);
  const auto alphas = a.numbers("alpha", 0, 1);
  const bool edgeworth = a.flag("edgeworth");
  const clt_inputs in = clt_inputs_of(specs, a.flag("numeric"), edgeworth);
  const clt_approximation r = clt(in.terms);
  const bool all_finite = all_functionals_finite(in.terms);
  json out = envelope("clt");
  out["terms"] = in.terms_json;
  out["total"] = totals_json(r, all_finite);
  add_clt_json(out, r, alphas);
  // Asymmetric terms have no Berry-Esseen band, but the one CLT rule of
  // compose, compare and dpsgd (the terms' central limits) still gives mu.
  const clt_estimate limits = clt_estimate_of(specs, 0.5);
  if (!r.applicable() && limits.applicable) {
    out["applicable"] = true;
    out["mu"] = num(limits.mu);
    out["band_reason"] = r.reason();
    out.erase("reason");
    for (json& x : out["band"])
      x["estimate"] = num(beta(gaussian(limits.mu), x["alpha"].get<double>()));
  }
  std::optional<clt_eps_delta_limit> lim;
  if (in.all_eps_delta && !in.eps_delta_terms.empty()) {
    lim = clt_eps_delta(in.eps_delta_terms);
    out["eps_delta_limit"] = eps_delta_limit_json(*lim, alphas);
  }
  edgeworth_values ew;
  if (edgeworth) {
    ew = edgeworth_betas(in.cumulants, alphas);
    out["edgeworth"] = edgeworth_json(ew);
  }
  const json relations = spec_assumptions_json(specs);
  if (!relations.empty()) out["assumptions"] = {{"specs", relations}};
  if (a.flag("json")) {
    print_json(out);
    return 0;
  }
  print_spec_assumptions(specs);
  print_functionals(in.terms, r, all_finite);
  print_clt_band(r, limits, alphas);
  if (edgeworth) print_edgeworth(ew);
  if (lim) print_eps_delta_limit(*lim, alphas);
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "clt",
    "CLT functionals, the CLT approximation mu and its Berry-Esseen band (not a bound)",
    "usage: fdp clt SPEC... [--alpha A]... [--numeric] [--edgeworth] [--json]\n\n"
    "For each spec (one application) the functionals of f = T(P, Q), with\n"
    "L = log(dQ/dP) under P (Dong, Roth & Su 2019, Sec. 3.2):\n"
    "  kl = -int log|f'| = -E L,  kappa2 = E L^2,  kappa3 = E |L|^3,\n"
    "  kappa3bar = E |L + kl|^3,  var = kappa2 - kl^2;\n"
    "their sums over the composition (times=N counts N times), and\n"
    "  mu    = 2 ||kl||_1 / sqrt(||kappa2||_1 - ||kl||_2^2)      (clt_mu)\n"
    "  gamma = 0.56 ||kappa3bar||_1 / (||kappa2||_1 - ||kl||_2^2)^{3/2}.\n"
    "mu is an APPROXIMATION of the composition by G_mu, NOT A BOUND: use\n"
    "'fdp compose' for certified numbers. When gamma < 1/2, the Berry-Esseen\n"
    "band of DRS Thm 3.5 holds for alpha in [gamma, 1 - gamma]:\n"
    "  G_mu(alpha + gamma) - gamma <= f(alpha) <= G_mu(alpha - gamma) + gamma.\n"
    "The band needs symmetric terms with finite functionals. A Poisson-\n"
    "subsampled Gaussian (asymmetric) contributes the functionals of its\n"
    "central limit G_m, m^2 = q^2 (e^{(D/sigma)^2} - 1) (Bu, Dong, Long & Su\n"
    "2020): mu is given (the same rule as compose --method clt, compare and\n"
    "dpsgd), the band is not (\"band_reason\"). f_{eps,delta} with delta > 0\n"
    "(infinite functionals) gives \"applicable\": false with the reason. When every spec\n"
    "is epsdelta, the (eps, delta) limit of DRS Thm 3.6, G_mu (x) f_{0,1-e^-delta}\n"
    "with mu^2 = sum eps_i^2 and delta = sum delta_i, is printed as well.\n\n"
    "  --alpha A    the band (and G_mu) at A (repeatable)\n"
    "  --numeric    compute the functionals by quadrature of the loss law even\n"
    "               when a closed form exists (a cross-check)\n"
    "  --edgeworth  also the first-order Edgeworth approximation of f(alpha)\n"
    "               (Zheng, Dong, Long & Su 2020; NOT a bound) for the spec\n"
    "               kinds with loss cumulants ('fdp specs' lists them); it\n"
    "               handles asymmetric (subsampled) terms\n"
    "  --json       one JSON object: terms, total, applicable, mu, gamma,\n"
    "               band_valid, band [{alpha, beta: {lower, upper}, estimate}],\n"
    "               edgeworth [{alpha, beta}] with --edgeworth\n\n"
    "examples:\n"
    "  fdp clt laplace:b=10,times=100 --alpha 0.1     # mu = 0.984..., gamma = 0.0569...\n"
    "  fdp clt epsdelta:eps=0.1,times=100 --json\n"
    "  fdp clt epsdelta:eps=0.01,delta=1e-7,times=10000 --alpha 0.05\n"
    "  fdp clt subsampled-gaussian:sigma=1,q=0.01,times=1000 --edgeworth --alpha 0.1\n",
    {{"alpha", true, true, "band at this alpha"},
     {"numeric", false, false, "force the numeric route"},
     {"edgeworth", false, false, "Edgeworth approximation (not a bound)"},
     {"events", true, true, "dp_accounting-style event file (JSON)"},
     {"json", false, false, "JSON output"}},
    run_clt,
    true});

}  // namespace
}  // namespace fdp::cli
